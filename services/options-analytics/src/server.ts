import { natsConfig } from '@mdp/config';
import { startDataChangeAnnouncer } from '@mdp/nats';
import { systemClock } from '@mdp/nse-calendar';
import { runGrpcService } from '@mdp/runtime';
import { buildApp } from './app.ts';
import { optionsConfig } from './config.ts';
import { optionsService } from './service/options-service.ts';
import { OptionsStore } from './store/options-store.ts';

await runGrpcService({
  name: 'options-analytics',
  defaultSchema: 'options',
  migrationsDir: new URL('../migrations/', import.meta.url),
  config: { ...optionsConfig, ...natsConfig },
  build: (rt, pool) => {
    const { RISK_FREE_RATE, NATS_URL } = rt.config;
    const store = new OptionsStore(pool);
    // Every load records a new data version; the service serves it within a second.
    const announcer = startDataChangeAnnouncer({
      url: NATS_URL,
      service: 'options',
      logger: rt.logger,
      probe: () => store.dataVersion(),
    });
    return {
      server: buildApp({
        logger: rt.logger,
        tracer: rt.tracing.tracer,
        registry: rt.registry,
        impl: optionsService({ store, r: RISK_FREE_RATE, clock: systemClock }),
      }),
      close: () => announcer.close(),
    };
  },
});
