import { runGrpcService } from '@mdp/runtime';
import { buildApp } from './app.ts';

await runGrpcService({
  name: 'quota-ledger',
  defaultSchema: 'ledger',
  migrationsDir: new URL('../migrations/', import.meta.url),
  build: (rt) => buildApp({ logger: rt.logger, tracer: rt.tracing.tracer, registry: rt.registry }),
});
