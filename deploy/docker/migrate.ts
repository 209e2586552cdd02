/**
 * Applies one service's SQL migrations to its schema, then exits: 0 when the schema is up to date.
 * Bundled into each gRPC service's image as `dist/migrate.js`, where `../migrations/` is the service's
 * folder; the chart runs it in a pre-upgrade Job so new pods start on a migrated schema. It is the same
 * `migrate` the service runs at start-up (same table, same advisory lock), so the two never disagree
 * and running both is harmless.
 *
 *   DATABASE_URL, DB_SCHEMA (required), MIGRATIONS_DIR (default: ../migrations/ beside this file)
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { databaseConfig, loadConfig, Type } from '@mdp/config';
import { migrate } from '@mdp/db';
import { createLogger } from '@mdp/telemetry';

const service = process.env.MDP_SERVICE || 'service';
let config: { DATABASE_URL: string; DB_SCHEMA: string; MIGRATIONS_DIR?: string };
try {
  config = loadConfig(
    Type.Object({
      DATABASE_URL: databaseConfig.DATABASE_URL,
      DB_SCHEMA: Type.String({ pattern: '^[a-z_][a-z0-9_]{0,62}$' }),
      MIGRATIONS_DIR: Type.Optional(Type.String({ minLength: 1 })),
    }),
  );
} catch (err) {
  process.stderr.write(`${service}-migrate: invalid configuration: ${(err as Error).message}\n`);
  process.exit(78);
}
const logger = createLogger(`${service}-migrate`, 'info');
const dir = config.MIGRATIONS_DIR ?? fileURLToPath(new URL('../migrations/', import.meta.url));
try {
  const applied = await migrate({
    url: config.DATABASE_URL,
    schema: config.DB_SCHEMA,
    dir: existsSync(dir) ? dir : null,
    logger,
  });
  logger.info({ schema: config.DB_SCHEMA, applied }, 'schema is up to date');
  process.exit(0);
} catch (err) {
  logger.fatal({ err, schema: config.DB_SCHEMA }, 'migrations failed');
  process.exit(1);
}
