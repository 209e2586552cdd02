import { shardOf } from '@mdp/usage';
import type { Stack } from './stack.ts';

/**
 * A token of a new account on `plan` whose owner is shard `two` of 2 and shard `three` of 3: one that
 * moves (or stays) as a test of a shard-count change needs. Account ids are hashed, so it is found by
 * making accounts until one fits.
 */
export async function movingAccount(
  stack: Stack,
  plan: string,
  owners: { two: number; three: number },
): Promise<string> {
  for (;;) {
    const account = await stack.admin('account', 'create', '--plan', plan);
    if (shardOf(account, 2) === owners.two && shardOf(account, 3) === owners.three)
      return stack.admin('token', 'issue', account);
  }
}
