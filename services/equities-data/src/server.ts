import { natsConfig } from '@mdp/config';
import { startDataChangeAnnouncer } from '@mdp/nats';
import { calendarInForce, formatDay, putCalendarInForce, systemClock } from '@mdp/nse-calendar';
import { runGrpcService } from '@mdp/runtime';
import { buildApp, equitiesImpl } from './app.ts';
import { AreaData } from './areas/index.ts';
import { pgBarSource } from './areas/stocks/bar-source.ts';
import { EquitiesDataset } from './areas/stocks/dataset.ts';
import { readDataset } from './areas/stocks/read.ts';
import { readCalendar, seedCalendar } from './calendar/store.ts';
import { registerFreshnessMetrics } from './freshness.ts';
import { readDatasetVersion } from './store/dataset-change.ts';
import { listenForReloads } from './store/reload.ts';

await runGrpcService({
  name: 'equities-data',
  defaultSchema: 'equities',
  migrationsDir: new URL('../migrations/', import.meta.url),
  config: natsConfig,
  build: async (rt, pool) => {
    const announcer = startDataChangeAnnouncer({
      url: rt.config.NATS_URL,
      service: 'equities',
      logger: rt.logger,
    });
    // A new database's calendar is the seed, written once; every load reads what is there.
    await seedCalendar(pool);
    // Search, lookups and quotes answer from memory; only price pages and profiles read bars.
    const load = async () => {
      const started = Date.now();
      // Read before the data: an import committing in between makes it older, never newer, than the
      // data, which costs at most one needless reload after a reconnection.
      const version = await readDatasetVersion(pool);
      // The calendar first: the dataset's sessions are counted by it.
      const calendar = await readCalendar(pool);
      putCalendarInForce(calendar);
      const [snapshot, areaData] = await Promise.all([readDataset(pool), AreaData.read(pool)]);
      const loaded = { stocks: new EquitiesDataset(snapshot), areas: areaData, version };
      rt.logger.info(
        {
          stocks: loaded.stocks.size,
          lastBar: loaded.stocks.lastDay === undefined ? null : formatDay(loaded.stocks.lastDay),
          version,
          calendarEnds: calendar.lastYear,
          ms: Date.now() - started,
        },
        'equities dataset loaded',
      );
      return loaded;
    };
    let loaded = await load();
    registerFreshnessMetrics(rt.registry, () => loaded.stocks.lastDay, calendarInForce, systemClock);
    const listener = listenForReloads({
      databaseUrl: rt.config.DATABASE_URL,
      schema: rt.config.DB_SCHEMA,
      logger: rt.logger,
      isCurrent: async () => (await readDatasetVersion(pool)) === loaded.version,
      reload: async () => {
        loaded = await load();
        // The new data is being served: gateways may now drop what they kept of the old.
        announcer.announce();
      },
    });
    const server = buildApp({
      logger: rt.logger,
      tracer: rt.tracing.tracer,
      registry: rt.registry,
      calendar: calendarInForce,
      impl: equitiesImpl({
        dataset: () => loaded.stocks,
        areas: () => loaded.areas,
        pool,
        bars: pgBarSource(pool),
        clock: systemClock,
      }),
    });
    return {
      server,
      close: async () => {
        await listener.close();
        await announcer.close();
      },
    };
  },
});
