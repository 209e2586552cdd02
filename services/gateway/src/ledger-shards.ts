import { shardOf } from '@mdp/usage';

/**
 * Which ledger shard owns an account, by the shard map this gateway was given (LEDGER_ADDR, in shard
 * order): the one answer that admission, settlement and usage reads all route by.
 */
export class LedgerShards {
  constructor(readonly addresses: readonly string[]) {}

  get count(): number {
    return this.addresses.length;
  }

  /** The index of the shard that owns `accountId`. */
  of(accountId: string): number {
    return shardOf(accountId, this.addresses.length);
  }
}
