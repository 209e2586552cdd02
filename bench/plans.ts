import type { Stack } from '../test/stack.ts';

/** A burst cap no bench run reaches: every admission stays in its account's window, and none is refused. */
const UNREACHED_BURST = 100_000_000;

/**
 * Creates plan `name` on the stack's auth with no daily or monthly cap and a burst cap of `burst` a
 * minute: its accounts are leased with a burst window, as a paying plan's are, and never refused.
 */
export function createOpenPlan(
  stack: Pick<Stack, 'admin'>,
  name: string,
  burst = UNREACHED_BURST,
): Promise<string> {
  return stack.admin(
    'plan',
    'create',
    name,
    '--daily',
    'none',
    '--monthly',
    'none',
    '--burst',
    String(burst),
  );
}
