import { connectNats } from '@mdp/nats';
import { systemClock } from '@mdp/nse-calendar';
import { runGrpcService } from '@mdp/runtime';
import { usesDevTagKey } from '@mdp/tokens';
import { AccountStore } from './accounts.ts';
import { buildApp } from './app.ts';
import { authConfig } from './config.ts';
import { startOutboxRelay } from './outbox-relay.ts';
import { AuthStore, outboxChannel } from './store.ts';

await runGrpcService({
  name: 'auth',
  defaultSchema: 'auth',
  migrationsDir: new URL('../migrations/', import.meta.url),
  config: authConfig,
  build: async (rt, pool) => {
    const { config } = rt;
    const channel = outboxChannel(config.DB_SCHEMA);
    const store = new AuthStore(pool, config.TOKEN_HASH_SECRET, channel, config.TOKEN_TAG_KEYS);
    // The chart's Secret always carries a key of its own; this is `make run` or a hand-made deployment.
    if (usesDevTagKey(store.tagKeys))
      rt.logger.warn(
        'TOKEN_TAG_KEYS is the development key: anyone can tag tokens; set your own in production',
      );
    const accounts = new AccountStore(store, { clock: systemClock });
    // Ended sessions and invites and closed rate windows are deleted hourly (by every replica: harmless).
    const purge = setInterval(
      () =>
        accounts
          .purgeExpired()
          .catch((err) => rt.logger.warn({ err: (err as Error).message }, 'purge of ended sessions failed')),
      3_600_000,
    );
    purge.unref();
    // Token checks need only Postgres: a NATS outage delays revocation events (the outbox keeps them), so
    // it does not make auth unready.
    const nc = await connectNats({ url: config.NATS_URL, name: 'auth', logger: rt.logger });
    const relay = startOutboxRelay({
      pool,
      databaseUrl: config.DATABASE_URL,
      schema: config.DB_SCHEMA,
      channel,
      nc,
      logger: rt.logger,
    });
    return {
      server: buildApp({
        logger: rt.logger,
        tracer: rt.tracing.tracer,
        registry: rt.registry,
        store,
        accounts,
        clock: systemClock,
      }),
      close: async () => {
        clearInterval(purge);
        await relay.stop();
        await nc.drain();
      },
    };
  },
});
