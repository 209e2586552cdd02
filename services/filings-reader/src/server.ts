import { natsConfig } from '@mdp/config';
import { startDataChangeAnnouncer } from '@mdp/nats';
import { runGrpcService } from '@mdp/runtime';
import { buildApp } from './app.ts';
import { filingsConfig } from './config.ts';
import { close, createFilesServer, listen } from './files-server.ts';
import { LinkSigner } from './links.ts';
import { filingsImpl } from './service.ts';
import { FilingsStore } from './store.ts';

await runGrpcService({
  name: 'filings-reader',
  defaultSchema: 'filings',
  migrationsDir: new URL('../migrations/', import.meta.url),
  config: { ...filingsConfig, ...natsConfig },
  build: async (rt, pool) => {
    const { config } = rt;
    const store = new FilingsStore(pool);
    const baseUrl = config.PUBLIC_FILES_BASE_URL ?? `http://localhost:${config.FILES_PORT}`;
    const signer = new LinkSigner(config.LINK_SIGNING_KEY, baseUrl, config.LINK_TTL_SECONDS);
    const files = createFilesServer({ store, signer, logger: rt.logger });
    const filesPort = await listen(files, config.FILES_HOST, config.FILES_PORT);
    rt.logger.info({ filesPort, baseUrl }, 'public document links served');
    // Documents are read from Postgres on every call: an ingest is served at once, so announce it then.
    const announcer = startDataChangeAnnouncer({
      url: config.NATS_URL,
      service: 'filings',
      logger: rt.logger,
      probe: () => store.version(),
    });
    return {
      server: buildApp({
        logger: rt.logger,
        tracer: rt.tracing.tracer,
        registry: rt.registry,
        impl: filingsImpl({ store, signer }),
      }),
      close: async () => {
        await close(files);
        await announcer.close();
      },
    };
  },
});
