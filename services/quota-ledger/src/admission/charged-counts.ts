import { istDay, istMonth } from '@mdp/nse-calendar';

/**
 * What the log holds for an account as `AccountBook.loaded` takes it: `rest` units charged through REST
 * (none through MCP) in the IST day of `at` and in its month. For tests of the book and the shard.
 */
export const chargedCounts = (at: number, rest = 0) => ({
  day: istDay(at),
  dayCharged: { rest, mcp: 0 },
  month: istMonth(at),
  monthCharged: { rest, mcp: 0 },
});
