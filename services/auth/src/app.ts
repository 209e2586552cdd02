import { GrpcServer, type GrpcServerOptions } from '@mdp/grpc';
import type { Clock } from '@mdp/ist-time';
import { auth } from '@mdp/proto';
import type { AuthStore } from './store.ts';
import { decide } from './verify.ts';

/** Accounts, plans and tokens over gRPC: answers "who is this token". */
export function buildApp(opts: GrpcServerOptions & { store: AuthStore; clock: Clock }): GrpcServer {
  const { store, clock } = opts;
  return new GrpcServer(opts).add(auth.AuthServiceService, {
    verifyToken: async ({ token }) => decide(await store.findByToken(token), clock()),
  });
}
