import { type AsyncServiceImpl, GrpcServer, type GrpcServerOptions, notFoundForEveryMethod } from '@mdp/grpc';
import { options } from '@mdp/proto';

export type OptionsAnalyticsImpl = AsyncServiceImpl<typeof options.OptionsAnalyticsServiceService>;

/** Answers while no F&O data is loaded: every underlying is unknown. */
export const emptyDataset: OptionsAnalyticsImpl = notFoundForEveryMethod(
  options.OptionsAnalyticsServiceService,
  'no derivatives data for this underlying',
);

/** Option chains, IV history and per-stock derivatives analytics over gRPC. */
export function buildApp(opts: GrpcServerOptions & { impl?: OptionsAnalyticsImpl }): GrpcServer {
  return new GrpcServer(opts).add(options.OptionsAnalyticsServiceService, opts.impl ?? emptyDataset);
}
