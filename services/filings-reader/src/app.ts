import { type AsyncServiceImpl, GrpcServer, type GrpcServerOptions, notFoundForEveryMethod } from '@mdp/grpc';
import { filings } from '@mdp/proto';

export type FilingsReaderImpl = AsyncServiceImpl<typeof filings.FilingsReaderServiceService>;

/** Answers while no filing is ingested: every document is unknown. */
export const emptyDataset: FilingsReaderImpl = notFoundForEveryMethod(
  filings.FilingsReaderServiceService,
  'no such filing',
);

/** Filing index, page-range reading, summaries and earnings-call digests over gRPC. */
export function buildApp(opts: GrpcServerOptions & { impl?: FilingsReaderImpl }): GrpcServer {
  return new GrpcServer(opts).add(filings.FilingsReaderServiceService, opts.impl ?? emptyDataset);
}
