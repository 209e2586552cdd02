import type { Stack } from '../test/stack.ts';

/**
 * Creates plan `name` on the stack's auth with no daily or monthly cap and a burst cap no bench run
 * reaches: its accounts are leased with a burst window, as a paying plan's are, and never refused.
 */
export function createOpenPlan(stack: Pick<Stack, 'admin'>, name: string): Promise<string> {
  return stack.admin('plan', 'create', name, '--daily', 'none', '--monthly', 'none', '--burst', '100000000');
}
