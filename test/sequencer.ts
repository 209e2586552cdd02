import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Test files that take the longest (seconds of wall time in a `make test` on a 2-core machine, hooks
 * included), so they start first: with the files of four workers ordered by vitest alone (by size on a fresh clone,
 * which has no timings cached; by project name first), the slowest started last and the suite waited
 * on them, a third longer than the sum of its work over the workers. Refresh from a CI run's
 * `.local/vitest-report.json` when a file's time changes much.
 */
export const SLOW_FILES: Readonly<Record<string, number>> = {
  'test/reshard.int.test.ts': 260,
  'services/data-import/test/report.int.test.ts': 200,
  'test/chaos.int.test.ts': 155,
  'test/shards.int.test.ts': 100,
  'test/data-import.int.test.ts': 90,
  'test/chaos-replicas.int.test.ts': 89,
  'test/ops/dashboards.int.test.ts': 76,
  'test/run-data.int.test.ts': 75,
  'test/auth-flood.int.test.ts': 60,
  'test/auth-propagation.int.test.ts': 57,
  'services/equities-data/test/stocks/importers.int.test.ts': 50,
  'test/client-ids.int.test.ts': 49,
  // 129 s, but the platform files wait for the loaded platform (about two minutes): started after the
  // int files above, it waits for nothing.
  'test/platform/python-client.int.test.ts': 45,
  'test/ops/helm.int.test.ts': 36,
  'services/auth/test/accounts.int.test.ts': 35,
  'packages/grpc/src/replicas.int.test.ts': 31,
  'services/data-import/test/cli.int.test.ts': 30,
  'services/equities-data/test/service.int.test.ts': 30,
  'services/gateway/test/token-config.int.test.ts': 28,
};

/** `items` with the known slow files first, slowest first; the rest keep their order after them. */
export function slowFirst<T>(items: readonly T[], pathOf: (item: T) => string): T[] {
  const weight = (item: T) => SLOW_FILES[pathOf(item)] ?? 0;
  // Array.prototype.sort is stable: equal weights keep vitest's order.
  return [...items].sort((a, b) => weight(b) - weight(a));
}

/** vitest's order, then the slow files moved to the front (see SLOW_FILES). */
export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    return slowFirst(await super.sort(files), (f) => relative(root, f.moduleId));
  }
}
