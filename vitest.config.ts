import { defineConfig } from 'vitest/config';

// Two projects named by what they need: `unit` is pure and fast; `int` talks to real Postgres, NATS,
// gRPC servers and child processes, each test on uniquely named schemas, streams and accounts.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['{packages,services}/*/{src,test}/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: ['**/*.int.test.ts', '**/node_modules/**'],
        },
      },
      {
        test: {
          name: 'int',
          include: ['{packages,services}/*/{src,test}/**/*.int.test.ts', 'test/**/*.int.test.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
