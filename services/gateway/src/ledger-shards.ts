import { reliefOf, shardOf } from '@mdp/usage';

/**
 * Which ledger shard owns an account, by the shard map this gateway was given (LEDGER_ADDR, in shard
 * order), and which to ask now: the one answer that admission, settlement and usage reads all route by.
 */
export class LedgerShards {
  /** Whether a shard is out of reach now, as its admission stream sees it (`watch`). */
  private unreachable: (shard: number) => boolean = () => false;

  constructor(readonly addresses: readonly string[]) {}

  get count(): number {
    return this.addresses.length;
  }

  /** The index of the shard that owns `accountId`. */
  of(accountId: string): number {
    return shardOf(accountId, this.addresses.length);
  }

  /**
   * The shard to ask for an account of `owner`: `owner`, or while it is out of reach (restarting), the
   * shard that relieves it (`reliefOf`), which admits its accounts from its hand-over until it admits
   * again. An account its relief does not hold is refused there as it would be at its owner.
   */
  route(owner: number): number {
    if (this.addresses.length < 2 || !this.unreachable(owner)) return owner;
    const relief = reliefOf(owner);
    return this.unreachable(relief) ? owner : relief;
  }

  /** How to tell that a shard is out of reach (the admission streams know). */
  watch(unreachable: (shard: number) => boolean): void {
    this.unreachable = unreachable;
  }
}
