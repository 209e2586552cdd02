import { systemClock } from '@mdp/ist-time';
import { runGrpcService } from '@mdp/runtime';
import { buildApp } from './app.ts';
import { optionsConfig } from './config.ts';
import { optionsService } from './service/options-service.ts';
import { OptionsStore } from './store/options-store.ts';

await runGrpcService({
  name: 'options-analytics',
  defaultSchema: 'options',
  migrationsDir: new URL('../migrations/', import.meta.url),
  config: optionsConfig,
  build: (rt, pool) => {
    const { RISK_FREE_RATE } = rt.config as typeof rt.config & { RISK_FREE_RATE: number };
    return buildApp({
      logger: rt.logger,
      tracer: rt.tracing.tracer,
      registry: rt.registry,
      impl: optionsService({ store: new OptionsStore(pool), r: RISK_FREE_RATE, clock: systemClock }),
    });
  },
});
