/**
 * What every process a test starts (and every service a test builds in its own) is given, through the
 * test projects' environment (vitest.config.ts) and the platform project's one stack (platform/
 * loaded-stack.ts, started from vitest's own process): at most 4 Postgres connections a service pool,
 * where production's default is 10. The suite runs several stacks beside each other on the machine's
 * one Postgres, whose default allows 100 connections: a stack held 21 to 31 with 10 a pool and 14 to 18
 * with 4, and a clean-clone run on 30 November had a shard refused at start ("too many clients") and a
 * ledger that could not record in time. A pool of 4 queues what it cannot run at once; no test depends
 * on more.
 */
export const TEST_ENV: Readonly<Record<string, string>> = { DB_POOL_MAX: '4' };
