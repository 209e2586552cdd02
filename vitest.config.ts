import { defineConfig } from 'vitest/config';

// Tests import the typed client from its source, as the examples do (`--conditions=mdp-source`); the
// published package resolves to its build.
const resolve = {
  alias: { '@mdp/client': new URL('packages/client/src/index.ts', import.meta.url).pathname },
};

// Four projects named by what they need: `unit` is pure and fast; `int` talks to real Postgres, NATS,
// gRPC servers and child processes, each test on uniquely named schemas, streams and accounts;
// `platform` shares one whole platform loaded with data (started once per run by its global setup);
// `timed` holds the files whose limits or figures are latencies (the chaos faults' 50-300 ms limits, a
// fresh clone's minutes to its first 200): `make test` runs them after the others, one file at a time,
// so two busy cores shared with the whole suite do not decide them.
const TIMED = ['test/chaos.int.test.ts', 'test/chaos-replicas.int.test.ts', 'test/fresh-clone.int.test.ts'];
export default defineConfig({
  test: {
    projects: [
      {
        resolve,
        test: {
          name: 'unit',
          include: ['{packages,services}/*/{src,test}/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: ['**/*.int.test.ts', '**/node_modules/**'],
        },
      },
      {
        resolve,
        test: {
          name: 'int',
          include: ['{packages,services}/*/{src,test}/**/*.int.test.ts', 'test/**/*.int.test.ts'],
          exclude: ['test/platform/**', ...TIMED, '**/node_modules/**'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        resolve,
        test: {
          name: 'timed',
          include: TIMED,
          fileParallelism: false,
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        resolve,
        test: {
          name: 'platform',
          include: ['test/platform/**/*.int.test.ts'],
          globalSetup: ['test/platform/setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
