import {
  type AsyncServiceImpl,
  GrpcServer,
  type GrpcServerOptions,
  UNARY_MAX_CONNECTION_AGE_MS,
} from '@mdp/grpc';
import { filings } from '@mdp/proto';

export type FilingsReaderImpl = AsyncServiceImpl<typeof filings.FilingsReaderServiceService>;

/** Filing index, page-range reading, summaries and earnings-call digests over gRPC. */
export function buildApp(opts: GrpcServerOptions & { impl: FilingsReaderImpl }): GrpcServer {
  return new GrpcServer({ maxConnectionAgeMs: UNARY_MAX_CONNECTION_AGE_MS, ...opts }).add(
    filings.FilingsReaderServiceService,
    opts.impl,
  );
}
