import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Test files that take the longest (seconds of wall time in a clean-clone CI run, hooks included), so
 * they start first: with the files of four workers ordered by vitest alone (by size on a fresh clone,
 * which has no timings cached; by project name first), the slowest started last and the suite waited
 * on them, a third longer than the sum of its work over the workers. Refresh from a CI run's
 * `.local/vitest-report.json` when a file's time changes much.
 */
export const SLOW_FILES: Readonly<Record<string, number>> = {
  'test/reshard.int.test.ts': 110,
  'test/chaos.int.test.ts': 100,
  'test/shards.int.test.ts': 90,
  'test/platform/python-client.int.test.ts': 80,
  'test/ops/dashboards.int.test.ts': 75,
  'test/run-data.int.test.ts': 70,
  'services/data-import/test/report.int.test.ts': 60,
  'test/chaos-replicas.int.test.ts': 57,
  'test/auth-flood.int.test.ts': 50,
  'test/client-ids.int.test.ts': 42,
  'test/auth-propagation.int.test.ts': 42,
  'test/data-import.int.test.ts': 42,
  'services/data-import/test/cli.int.test.ts': 28,
  'services/gateway/test/resilience.int.test.ts': 25,
  'services/gateway/test/token-config.int.test.ts': 24,
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
