import { credentials, makeClientConstructor, type ServiceDefinition, status } from '@grpc/grpc-js';
import { ledger } from '@mdp/proto';
import { createLogger, createRegistry, trace } from '@mdp/telemetry';
import { describe, expect, it } from 'vitest';
import { RpcError } from './rpc-error.ts';
import { GrpcServer } from './server.ts';

// A stopping service ends its open streams when its shutdown begins: a client on a long-lived stream
// (a gateway on a ledger shard's admission stream) goes on elsewhere at once, not when the shutdown's
// grace runs out and the stream is cancelled.

describe('GrpcServer.shutdown', () => {
  it('ends open streams with OK at once, and still lets unary calls in flight finish', async () => {
    let releaseUsage!: () => void;
    const usageAnswered = new Promise<void>((r) => {
      releaseUsage = r;
    });
    const server = new GrpcServer({
      logger: createLogger('t', 'silent'),
      tracer: trace.getTracer('t'),
      registry: createRegistry('t'),
    }).add(ledger.QuotaLedgerServiceService, {
      // A stream the server never ends by itself.
      admit: () => {},
      getUsage: async () => {
        await usageAnswered;
        throw RpcError.notFound('nothing here');
      },
      getUsageHistory: async () => {
        throw RpcError.notFound('nothing here');
      },
    });
    const port = await server.listen('127.0.0.1', 0);
    const Client = makeClientConstructor(
      ledger.QuotaLedgerServiceService as unknown as ServiceDefinition,
      'QuotaLedgerService',
    );
    const client = new Client(`127.0.0.1:${port}`, credentials.createInsecure()) as unknown as {
      admit(): NodeJS.EventEmitter & { end(): void };
      getUsage(req: object, cb: (err: { code: number } | null) => void): void;
      close(): void;
    };
    const stream = client.admit();
    stream.on('data', () => {});
    const streamStatus = new Promise<number>((r) => stream.on('status', (s: { code: number }) => r(s.code)));
    stream.on('error', () => {});
    // The server has the stream once a unary call behind it on the same connection has arrived.
    const usage = new Promise<number>((r) =>
      client.getUsage({ account: { account_id: 'a' } }, (err) => r(err?.code ?? status.OK)),
    );
    await new Promise((r) => setTimeout(r, 200));

    // A grace far longer than the test: only an ended stream lets the shutdown finish within it.
    const stopped = server.shutdown(60_000);
    expect(await streamStatus).toBe(status.OK);
    releaseUsage();
    expect(await usage).toBe(status.NOT_FOUND);
    await stopped;
    client.close();
  });
});
