import { databaseConfig, loadConfig } from '@mdp/config';
import { createPool, migrate, type Pool } from '@mdp/db';
import { createLogger } from '@mdp/telemetry';
import { type Static, type TProperties, Type } from '@sinclair/typebox';
import { assertSupportedNode } from './node-version.ts';

/** A command line the tool cannot act on: exit code 2, with the usage text. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export interface ServiceCliSpec<P extends TProperties> {
  /** Prefix of every message, e.g. `auth-admin`. */
  name: string;
  usage: string;
  /** The service's schema, which the tool migrates before acting so it works before the service ever ran. */
  defaultSchema: string;
  migrationsDir: URL;
  /** Variables beyond DATABASE_URL, DB_SCHEMA and DB_POOL_MAX. */
  config?: P;
  /** A refusal the user can act on gets its own words and exit code 1; return them, or undefined. */
  refusal?: (err: unknown) => string | undefined;
  /** Commands that need no database (e.g. writing a file). */
  withoutDatabase?: (argv: string[]) => boolean;
  /** Runs one command; resolves to what goes to stdout. Progress goes to `progress` (stderr). */
  run: (ctx: {
    argv: string[];
    pool: Pool;
    config: Static<ReturnType<typeof Type.Object<P>>> & { DATABASE_URL: string; DB_SCHEMA: string };
    progress: (line: string) => void;
  }) => Promise<string>;
}

/**
 * The life of a service's data or admin tool: a supported Node (or exit 78), configuration from the
 * environment, migrations, a small pool, one command, then exit 0 (done), 1 (refused, with the reason) or
 * 2 (usage). stdout carries only the command's answer, so scripts can use it.
 */
export async function runServiceCli<P extends TProperties>(spec: ServiceCliSpec<P>): Promise<never> {
  assertSupportedNode(spec.name);
  const say = (text: string) => process.stderr.write(`${spec.name}: ${text}\n`);
  const argv = process.argv.slice(2);
  let code = 1;
  let pool: Pool | undefined;
  try {
    const config = loadConfig(
      Type.Object({
        ...databaseConfig,
        ...(spec.config ?? {}),
        DB_SCHEMA: Type.String({ default: spec.defaultSchema, pattern: '^[a-z_][a-z0-9_]{0,62}$' }),
      }),
    ) as unknown as Parameters<ServiceCliSpec<P>['run']>[0]['config'];
    if (!spec.withoutDatabase?.(argv)) {
      await migrate({
        url: config.DATABASE_URL,
        schema: config.DB_SCHEMA,
        dir: spec.migrationsDir.pathname,
        logger: createLogger(spec.name, 'warn'),
      });
    }
    pool = createPool({
      url: config.DATABASE_URL,
      schema: config.DB_SCHEMA,
      max: 4,
      applicationName: spec.name,
    });
    const out = await spec.run({ argv, pool, config, progress: (line) => process.stderr.write(`${line}\n`) });
    if (out) process.stdout.write(`${out}\n`);
    code = 0;
  } catch (err) {
    const errCode = (err as { code?: unknown }).code;
    if (err instanceof UsageError || (typeof errCode === 'string' && errCode.startsWith('ERR_PARSE_ARGS'))) {
      say(`${(err as Error).message}\n\n${spec.usage}`);
      code = 2;
    } else {
      say(spec.refusal?.(err) ?? (err as Error).message);
    }
  } finally {
    await pool?.end().catch(() => {});
  }
  process.exit(code);
}

/** Whether this module is the process's entry point (so importing a CLI for tests runs nothing). */
export function isEntryPoint(moduleUrl: string): boolean {
  return moduleUrl === `file://${process.argv[1]}`;
}
