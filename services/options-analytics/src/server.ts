import { natsConfig } from '@mdp/config';
import { startDataChangeAnnouncer } from '@mdp/nats';
import { systemClock } from '@mdp/nse-calendar';
import { runGrpcService } from '@mdp/runtime';
import { buildApp } from './app.ts';
import { followCalendar } from './calendar/follow.ts';
import { optionsServiceConfig } from './config.ts';
import { optionsService, versionReader } from './service/options-service.ts';
import { moveExpiriesOffClosedDays } from './store/move-expiries.ts';
import { OptionsStore } from './store/options-store.ts';

await runGrpcService({
  name: 'options-analytics',
  defaultSchema: 'options',
  migrationsDir: new URL('../migrations/', import.meta.url),
  config: { ...optionsServiceConfig, ...natsConfig },
  build: (rt, pool) => {
    const { RISK_FREE_RATE, NATS_URL, EQUITIES_ADDR } = rt.config;
    const store = new OptionsStore(pool);
    const served = versionReader(store, systemClock);
    // Expiries follow the calendar in force: a holiday declared on a held expiry moves it (as the
    // exchange does), whether this replica or the import that brought the list moves it first.
    const calendar = followCalendar({
      address: EQUITIES_ADDR,
      natsUrl: NATS_URL,
      logger: rt.logger,
      registry: rt.registry,
      dataVersion: () => store.dataVersion(),
      onChange: async (c) => {
        const moved = await moveExpiriesOffClosedDays(pool, c);
        if (moved.length > 0) rt.logger.info({ moved }, 'expiries moved off days the calendar closed');
      },
    });
    // Every load records a new data version; the service serves it within a second.
    const announcer = startDataChangeAnnouncer({
      url: NATS_URL,
      service: 'options',
      logger: rt.logger,
      probe: served,
    });
    return {
      server: buildApp({
        logger: rt.logger,
        tracer: rt.tracing.tracer,
        registry: rt.registry,
        impl: optionsService({ store, r: RISK_FREE_RATE, clock: systemClock, dataVersion: served }),
      }),
      close: async () => {
        await calendar.close();
        await announcer.close();
      },
    };
  },
});
