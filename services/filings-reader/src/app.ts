import { type AsyncServiceImpl, GrpcServer, type GrpcServerOptions } from '@mdp/grpc';
import { filings } from '@mdp/proto';

export type FilingsReaderImpl = AsyncServiceImpl<typeof filings.FilingsReaderServiceService>;

/** Filing index, page-range reading, summaries and earnings-call digests over gRPC. */
export function buildApp(opts: GrpcServerOptions & { impl: FilingsReaderImpl }): GrpcServer {
  return new GrpcServer(opts).add(filings.FilingsReaderServiceService, opts.impl);
}
