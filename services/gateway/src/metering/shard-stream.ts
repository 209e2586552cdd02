import { Client, type ClientDuplexStream, connectivityState, credentials, Metadata } from '@grpc/grpc-js';
import { CHANNEL_OPTIONS } from '@mdp/grpc';
import type { Clock } from '@mdp/nse-calendar';
import { ledger } from '@mdp/proto';
import type { Logger } from '@mdp/telemetry';
import { BATCH_VERSIONS_KEY, readsCompact } from '@mdp/usage';
import { Deferred } from './deferred.ts';
import { type Ended, ShardBook, type Turn, type Waiting } from './shard-book.ts';

/** A request waiting for its shard's answer, as the stream answers it. */
export interface AdmissionWaiter extends Waiting {
  /** The shard decided. */
  answer(res: ledger.AdmissionResult): void;
  /** No answer within the deadline, or no stream: a 503. */
  unavailable(): void;
}

type AdmitStream = ClientDuplexStream<ledger.AdmitRequest, ledger.AdmitResponse>;

const WITHDRAWN: Promise<void> = Promise.resolve();

/**
 * One long-lived admission stream to one ledger shard, multiplexing every request of this gateway: the
 * requests of one event-loop turn travel as one message, with one deadline timer. What to send and whom
 * to answer is the book's to say; this writes it on the stream and answers the waiters.
 */
export class ShardStream {
  private stream: AdmitStream | null = null;
  /**
   * The open stream's ledger said it reads compact settlement batches. That process consumes this
   * shard's stream, so only while its stream is open may this shard's charges go compact; cleared when
   * the stream breaks (a restart may bring an older release back).
   */
  private compactReader = false;
  /** A stream broke and no stream since has heard from the shard: it may be away (restarting). */
  private lost = false;
  private readonly book: ShardBook<AdmissionWaiter, Deferred<void>>;
  private readonly client: Client;
  private flushScheduled = false;
  private readonly flushTurn = () => this.flush();
  private readonly expireTurn = (turn: Turn<AdmissionWaiter>) =>
    this.end(this.book.expire(turn, this.clock()));

  constructor(
    address: string,
    private readonly logger: Logger,
    private readonly deadlineMs: number,
    holdTtlMs: number,
    private readonly clock: Clock,
    private readonly leases: {
      /** The shard wants these leases back. */
      recalled(leaseIds: readonly string[]): void;
      /** The shard answered requests for extensions (`extendLease`). */
      extended(extensions: readonly ledger.LeaseExtension[]): void;
      /** The stream broke: every lease it granted is gone (the shard writes them off). */
      lost(): void;
    },
  ) {
    this.client = new Client(address, credentials.createInsecure(), CHANNEL_OPTIONS);
    this.book = new ShardBook(holdTtlMs);
  }

  /** Whether this shard's charges may be published as compact batches now (`compactReader`). */
  get readsCompact(): boolean {
    return this.compactReader;
  }

  /** Answered by the shard within the deadline, or 503. */
  admit(waiter: AdmissionWaiter): void {
    const admitting = this.book.admit(waiter, this.clock());
    if (admitting === 'refused') {
      waiter.unavailable();
      return;
    }
    if (admitting === 'dial') this.open();
    this.scheduleFlush();
  }

  /**
   * Whether the shard is out of reach: its stream broke a moment ago, or it broke and the channel has
   * no connection since (a restart). Asking makes the channel connect again, so it is seen coming back.
   */
  unreachable(): boolean {
    if (!this.lost) return false;
    if (this.book.refusing(this.clock())) return true;
    return this.client.getChannel().getConnectivityState(true) !== connectivityState.READY;
  }

  /** Resolves when the shard no longer holds the request, or at the deadline (see `ShardBook.release`). */
  release(key: ledger.RequestKey): Promise<void> {
    const done = new Deferred<void>();
    return this.withdrawal(this.book.release(key, done), done);
  }

  /** Resolves when the shard no longer counts the request, or at the deadline (`ShardBook.voidCharge`). */
  voidCharge(v: ledger.VoidedRequest): Promise<void> {
    const done = new Deferred<void>();
    return this.withdrawal(this.book.voidCharge(v, done), done);
  }

  settled(requestId: string): void {
    this.book.settled(requestId);
  }

  /** A lease goes back with this turn's message (nowhere if no stream is up). */
  returnLease(r: ledger.LeaseReturn): void {
    if (this.book.returnLease(r)) this.scheduleFlush();
  }

  /** The holder of one of this shard's leases would keep it longer: asked with this turn's message. */
  extendLease(e: ledger.LeaseExtensionRequest): boolean {
    if (!this.book.extendLease(e)) return false;
    this.scheduleFlush();
    return true;
  }

  /** Requests admitted here under a lease of this shard's that ended before they settled. */
  outlivedLease(holds: readonly ledger.RestoredHold[]): void {
    this.book.outlivedLease(holds, this.clock());
  }

  close(): void {
    // What this turn still has to say (leases given back on the way out) goes first.
    this.flush();
    this.stream?.end();
    this.client.close();
  }

  private withdrawal(queued: boolean, done: Deferred<void>): Promise<void> {
    if (!queued) return WITHDRAWN;
    this.scheduleFlush();
    return done.promise;
  }

  private open(): void {
    const def = ledger.QuotaLedgerServiceService.admit;
    const stream: AdmitStream = this.client.makeBidiStreamRequest(
      def.path,
      def.requestSerialize,
      def.responseDeserialize,
      new Metadata(),
    );
    stream.on('metadata', (md: Metadata) => {
      if (stream === this.stream) this.compactReader = readsCompact(md.get(BATCH_VERSIONS_KEY)[0]);
    });
    stream.on('data', (response: ledger.AdmitResponse) => this.received(stream, response));
    stream.on('error', (err) => this.broken(stream, err.message));
    stream.on('end', () => this.broken(stream, 'ended by the ledger'));
    this.stream = stream;
    this.compactReader = false;
    for (const message of this.book.opened(this.clock())) stream.write(message);
  }

  private received(stream: AdmitStream, response: ledger.AdmitResponse): void {
    if (stream !== this.stream) return;
    this.lost = false;
    for (const id of response.released) this.book.acknowledged(id)?.resolve();
    const now = this.clock();
    for (const res of response.results) this.book.answered(res, now)?.answer(res);
    if (response.extensions.length > 0) this.leases.extended(response.extensions);
    if (response.recalls.length > 0) this.leases.recalled(response.recalls);
    if (this.book.due) this.scheduleFlush();
  }

  private broken(stream: AdmitStream, why: string): void {
    if (stream !== this.stream) return;
    this.stream = null;
    this.compactReader = false;
    this.lost = true;
    this.logger.warn({ why }, 'admission stream to the ledger closed');
    this.leases.lost();
    this.end(this.book.broken(this.clock()));
  }

  private end(ended: Ended<AdmissionWaiter, Deferred<void>>): void {
    for (const waiter of ended.unavailable) waiter.unavailable();
    for (const done of ended.withdrawn) done.resolve();
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(this.flushTurn);
  }

  private flush(): void {
    this.flushScheduled = false;
    const turn = this.book.flush();
    if (!turn) return;
    this.stream?.write(turn.message);
    setTimeout(this.expireTurn, this.deadlineMs, turn).unref();
  }
}
