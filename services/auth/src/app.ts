import { GrpcServer, type GrpcServerOptions, UNARY_MAX_CONNECTION_AGE_MS } from '@mdp/grpc';
import type { Clock } from '@mdp/ist-time';
import { auth } from '@mdp/proto';
import type { AuthStore } from './store.ts';
import { decide } from './verify.ts';

/** Accounts, plans and tokens over gRPC: answers "who is this token". */
export function buildApp(opts: GrpcServerOptions & { store: AuthStore; clock: Clock }): GrpcServer {
  const { store, clock } = opts;
  return new GrpcServer({ maxConnectionAgeMs: UNARY_MAX_CONNECTION_AGE_MS, ...opts }).add(
    auth.AuthServiceService,
    {
      verifyToken: async ({ token }) => decide(await store.findByToken(token), clock()),
    },
  );
}
