import { GrpcServer, type GrpcServerOptions, notFoundForEveryMethod } from '@mdp/grpc';
import { equities } from '@mdp/proto';
import { type EquitiesDataImpl, type ServiceDeps, stockRpcs } from './service/impl.ts';

export type { EquitiesDataImpl };

/** Answers while no dataset is loaded: every symbol, index and series is unknown. */
export const emptyDataset: EquitiesDataImpl = notFoundForEveryMethod(
  equities.EquitiesDataServiceService,
  'not in the equities dataset',
);

/** Stocks, quotes and prices from the dataset; the routes of later issues still answer NOT_FOUND. */
export function equitiesImpl(deps: ServiceDeps): EquitiesDataImpl {
  return { ...emptyDataset, ...stockRpcs(deps) };
}

/** Stocks, quotes, prices, financials, corporate data, indices and market flows over gRPC. */
export function buildApp(opts: GrpcServerOptions & { impl?: EquitiesDataImpl }): GrpcServer {
  return new GrpcServer(opts).add(equities.EquitiesDataServiceService, opts.impl ?? emptyDataset);
}
