import {
  type AsyncServiceImpl,
  GrpcServer,
  type GrpcServerOptions,
  UNARY_MAX_CONNECTION_AGE_MS,
} from '@mdp/grpc';
import { options } from '@mdp/proto';

export type OptionsAnalyticsImpl = AsyncServiceImpl<typeof options.OptionsAnalyticsServiceService>;

/** Option chains, IV history and per-stock derivatives analytics over gRPC. */
export function buildApp(opts: GrpcServerOptions & { impl: OptionsAnalyticsImpl }): GrpcServer {
  return new GrpcServer({ maxConnectionAgeMs: UNARY_MAX_CONNECTION_AGE_MS, ...opts }).add(
    options.OptionsAnalyticsServiceService,
    opts.impl,
  );
}
