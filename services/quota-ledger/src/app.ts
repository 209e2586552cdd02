import { type AsyncServiceImpl, GrpcServer, type GrpcServerOptions, notFoundForEveryMethod } from '@mdp/grpc';
import { ledger } from '@mdp/proto';

export type QuotaLedgerImpl = AsyncServiceImpl<typeof ledger.QuotaLedgerServiceService>;

/** Answers while the ledger holds no account. */
export const emptyLedger: QuotaLedgerImpl = notFoundForEveryMethod(
  ledger.QuotaLedgerServiceService,
  'no such account',
);

/** The event-sourced usage ledger over gRPC. */
export function buildApp(opts: GrpcServerOptions & { impl?: QuotaLedgerImpl }): GrpcServer {
  return new GrpcServer(opts).add(ledger.QuotaLedgerServiceService, opts.impl ?? emptyLedger);
}
