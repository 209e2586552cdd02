import { INTERFACES, type Interface } from '@mdp/usage';
import { type Static, type TInteger, Type } from '@sinclair/typebox';
import { type Caller, defineRoute, noParams } from './route.ts';

/** The verified caller as the ledger needs it: it never reads the auth service's tables. */
export function ledgerAccount(caller: Caller) {
  return {
    account_id: caller.accountId,
    plan: caller.plan,
    daily_cap: caller.dailyCap ?? undefined,
    monthly_cap: caller.monthlyCap ?? undefined,
    burst_per_minute: caller.burstPerMinute ?? undefined,
  };
}

/** SPEC 2.5: one usage window. */
const UsageWindow = (periodDescription: string, pattern: string) =>
  Type.Object({
    period: Type.String({ description: periodDescription, pattern }),
    used: Type.Integer({ minimum: 0 }),
    limit: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'null when unlimited' }),
    remaining: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
      description: 'null when unlimited',
    }),
    resets_at: Type.String({ format: 'date-time', description: 'When the window resets (UTC)' }),
    by_interface: Type.Object(
      Object.fromEntries(INTERFACES.map((via) => [via, Type.Integer({ minimum: 0 })])) as Record<
        Interface,
        TInteger
      >,
      {
        description:
          'Of `used`, the units used through each interface: `rest` (this API) and `mcp` (the tool server). Every cap counts them together.',
      },
    ),
  });

export const UsageDocument = Type.Object(
  {
    plan: Type.String(),
    day: UsageWindow('IST day, YYYY-MM-DD', '^\\d{4}-\\d{2}-\\d{2}$'),
    month: UsageWindow('IST month, YYYY-MM', '^\\d{4}-\\d{2}$'),
  },
  { $id: 'UsageDocument' },
);

export const OPENAPI_OPERATION_ID = 'getOpenApi';
export const USAGE_OPERATION_ID = 'getMyUsage';

export const accountRoutes = [
  defineRoute({
    operationId: USAGE_OPERATION_ID,
    toolName: 'get_usage',
    path: '/v1/me/usage',
    summary: "The token's plan and its usage in the current IST day and month (free)",
    description:
      'Counts every 200 the token has received at once (read-your-writes), on any gateway; remaining is what X-RateLimit-Remaining would say, and the answer carries the rate-limit headers of the binding window (taking nothing for itself). Windows reset at midnight IST (18:30Z) and on the first of the IST month. Free and not admitted.',
    tag: 'Account',
    metered: false,
    authenticated: true,
    params: noParams,
    query: noParams,
    data: Type.Ref('UsageDocument'),
    upstream: 'ledger',
    dispatch: (up, { caller, leaseCharges }) =>
      up.ledger(caller!.accountId).getUsage({ account: ledgerAccount(caller!), lease_charges: leaseCharges }),
    usedOf: (data) => {
      const { day, month } = JSON.parse(data) as Static<typeof UsageDocument>;
      return { day: day.used, month: month.used, within: Date.parse(day.resets_at) - 1 };
    },
  }),
  defineRoute({
    operationId: OPENAPI_OPERATION_ID,
    path: '/v1/openapi.json',
    summary: 'This interface as an OpenAPI 3.1 document (free, no token)',
    description:
      'Served as the bare OpenAPI document, not wrapped in the data envelope, so tools can read it directly.',
    tag: 'Meta',
    metered: false,
    authenticated: false,
    params: noParams,
    query: noParams,
  }),
];
