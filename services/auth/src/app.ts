import { GrpcServer, type GrpcServerOptions } from '@mdp/grpc';

/** Accounts, plans and tokens. Serves the gRPC health protocol; token verification joins it next. */
export function buildApp(opts: GrpcServerOptions): GrpcServer {
  return new GrpcServer(opts);
}
