import { type AsyncServiceImpl, GrpcServer, type GrpcServerOptions } from '@mdp/grpc';
import { options } from '@mdp/proto';

export type OptionsAnalyticsImpl = AsyncServiceImpl<typeof options.OptionsAnalyticsServiceService>;

/** Option chains, IV history and per-stock derivatives analytics over gRPC. */
export function buildApp(opts: GrpcServerOptions & { impl: OptionsAnalyticsImpl }): GrpcServer {
  return new GrpcServer(opts).add(options.OptionsAnalyticsServiceService, opts.impl);
}
