import { type AsyncServiceImpl, GrpcServer, type GrpcServerOptions, notFoundForEveryMethod } from '@mdp/grpc';
import { equities } from '@mdp/proto';

export type EquitiesDataImpl = AsyncServiceImpl<typeof equities.EquitiesDataServiceService>;

/** Answers while no dataset is loaded: every symbol, index and series is unknown. */
export const emptyDataset: EquitiesDataImpl = notFoundForEveryMethod(
  equities.EquitiesDataServiceService,
  'not in the equities dataset',
);

/** Stocks, quotes, prices, financials, corporate data, indices and market flows over gRPC. */
export function buildApp(opts: GrpcServerOptions & { impl?: EquitiesDataImpl }): GrpcServer {
  return new GrpcServer(opts).add(equities.EquitiesDataServiceService, opts.impl ?? emptyDataset);
}
