import { createInbox, type Msg, type NatsConnection, headers as natsHeaders, type Subscription } from 'nats';

/** JetStream's answer to a stored publish. */
export interface PubAck {
  stream: string;
  seq: number;
  /** The message id was already stored within the stream's duplicate window: stored once, not twice. */
  duplicate: boolean;
}

interface Waiter {
  resolve(ack: PubAck): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

const decoder = new TextDecoder();

/**
 * JetStream publishes acknowledged on one reply subscription of this publisher's own (`<inbox>.*`, one
 * token a publish), instead of the client's `js.publish`, which is a request: a mux entry, a deferred, a
 * timer object and, when the answer arrives, a `NatsError` built (with its stack) to cancel the request it
 * has just resolved. Measured on the gateway under load, that machinery cost more than the publish.
 * What stays per publish: the headers (the message id the stream de-duplicates by), one `setTimeout` and
 * one entry in a map. Nothing is built on the success path that is not the answer.
 *
 * The subscription is the client's, so it is re-established when the connection comes back; an answer
 * that comes after its timeout finds no waiter and is dropped (the message was stored all the same,
 * which a retry with the same message id then learns as a duplicate).
 */
export class AckedPublisher {
  private readonly prefix = `${createInbox()}.`;
  private readonly waiting = new Map<string, Waiter>();
  private readonly subscription: Subscription;
  private next = 0;

  constructor(private readonly nc: NatsConnection) {
    this.subscription = nc.subscribe(`${this.prefix}*`, { callback: (_err, msg) => this.answered(msg) });
  }

  /**
   * Publishes `payload` to `subject` with `msgId` as its JetStream message id. Resolves with the stream's
   * acknowledgement; rejects when the stream refuses it, when no stream takes the subject, when the client
   * cannot send, or after `timeoutMs` without an answer.
   */
  publish(subject: string, payload: string | Uint8Array, msgId: string, timeoutMs: number): Promise<PubAck> {
    const token = (this.next++).toString(36);
    const h = natsHeaders();
    h.set('Nats-Msg-Id', msgId);
    return new Promise<PubAck>((resolve, reject) => {
      try {
        this.nc.publish(subject, payload, { reply: this.prefix + token, headers: h });
      } catch (err) {
        return reject(err as Error);
      }
      const timer = setTimeout(() => this.fail(token, new Error('JetStream publish timed out')), timeoutMs);
      this.waiting.set(token, { resolve, reject, timer });
    });
  }

  /** Fails every publish still waiting (the connection is gone); their messages may still have been stored. */
  failAll(why: string): void {
    for (const token of [...this.waiting.keys()]) this.fail(token, new Error(why));
  }

  close(): void {
    this.failAll('publisher closed');
    this.subscription.unsubscribe();
  }

  private fail(token: string, err: Error): void {
    const waiter = this.waiting.get(token);
    if (!waiter) return;
    this.waiting.delete(token);
    clearTimeout(waiter.timer);
    waiter.reject(err);
  }

  private answered(msg: Msg): void {
    const token = msg.subject.slice(this.prefix.length);
    const waiter = this.waiting.get(token);
    if (!waiter) return;
    const ack = readAck(msg);
    if (ack instanceof Error) {
      this.fail(token, ack);
      return;
    }
    this.waiting.delete(token);
    clearTimeout(waiter.timer);
    waiter.resolve(ack);
  }
}

/** JetStream's answer to a publish: its acknowledgement, or why it was not stored. */
function readAck(msg: Msg): PubAck | Error {
  // A status without a body: 503 when nothing listens on the subject (no stream takes it).
  const status = msg.headers?.code ?? 0;
  if (status >= 400 || msg.data.length === 0)
    return new Error(status === 503 ? 'no stream takes the subject' : `status ${status}`);
  let answer: { stream?: unknown; seq?: unknown; duplicate?: unknown; error?: { description?: string } };
  try {
    answer = JSON.parse(decoder.decode(msg.data));
  } catch {
    return new Error('JetStream answered something that is not JSON');
  }
  if (answer.error || typeof answer.stream !== 'string' || typeof answer.seq !== 'number')
    return new Error(answer.error?.description ?? 'JetStream refused the publish');
  return { stream: answer.stream, seq: answer.seq, duplicate: answer.duplicate === true };
}
