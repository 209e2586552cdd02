import { shardOf } from '@mdp/usage';
import type { Stack } from './stack.ts';

/** Creates plan `name` with these caps (a cap left out is `none`), through the admin CLI. */
export async function createPlan(
  stack: Stack,
  name: string,
  caps: { daily?: number; monthly?: number; burst?: number },
): Promise<void> {
  const cap = (n: number | undefined) => (n === undefined ? 'none' : String(n));
  await stack.admin(
    'plan',
    'create',
    name,
    '--daily',
    cap(caps.daily),
    '--monthly',
    cap(caps.monthly),
    '--burst',
    cap(caps.burst),
  );
}

/**
 * A new account on `plan` for which `fits` holds, and a token of it. Account ids are hashed, so one that
 * a shard test needs (on a given shard, moving between two) is found by making accounts until one fits.
 */
export async function accountWhere(
  stack: Stack,
  plan: string,
  fits: (accountId: string) => boolean,
): Promise<{ account: string; token: string }> {
  for (;;) {
    const account = await stack.admin('account', 'create', '--plan', plan);
    if (fits(account)) return { account, token: await stack.admin('token', 'issue', account) };
  }
}

/**
 * A token of a new account on `plan` whose owner is shard `two` of 2 and shard `three` of 3: one that
 * moves (or stays) as a test of a shard-count change needs.
 */
export async function movingAccount(
  stack: Stack,
  plan: string,
  owners: { two: number; three: number },
): Promise<string> {
  const fits = (a: string) => shardOf(a, 2) === owners.two && shardOf(a, 3) === owners.three;
  return (await accountWhere(stack, plan, fits)).token;
}
