import { usageStreamConfig } from '@mdp/config';
import { Type } from '@sinclair/typebox';

/** Variables of the ledger service besides the common and database ones. */
export const ledgerConfig = {
  ...usageStreamConfig,
  SHARD_INDEX: Type.Integer({
    default: 0,
    minimum: 0,
    maximum: 1023,
    description: 'Which shard this replica is',
  }),
  SHARD_COUNT: Type.Integer({
    default: 1,
    minimum: 1,
    maximum: 1024,
    description: 'How many shards own accounts',
  }),
  LEDGER_STATS_INTERVAL_MS: Type.Integer({
    default: 10_000,
    minimum: 200,
    maximum: 600_000,
    description: 'How often the consumer-lag and top-account gauges are refreshed',
  }),
  REBUILD_CHECK_INTERVAL_MS: Type.Integer({
    default: 3_600_000,
    minimum: 0,
    maximum: 86_400_000,
    description: 'How often shard 0 compares the projections with a replay of the event log (0: never)',
  }),
};
