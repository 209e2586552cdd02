import { GrpcServer, type GrpcServerOptions, UNARY_MAX_CONNECTION_AGE_MS } from '@mdp/grpc';
import type { Clock } from '@mdp/nse-calendar';
import { auth } from '@mdp/proto';
import { accountHandlers } from './account-handlers.ts';
import { AccountStore } from './accounts.ts';
import type { AuthStore } from './store.ts';
import { decide } from './verify.ts';

/**
 * Accounts, plans and tokens over gRPC: answers "who is this token", and serves the account web site.
 * `accounts` defaults to an `AccountStore` over the same schema and clock.
 */
export function buildApp(
  opts: GrpcServerOptions & { store: AuthStore; clock: Clock; accounts?: AccountStore },
): GrpcServer {
  const { store, clock } = opts;
  const accounts = opts.accounts ?? new AccountStore(store, { clock });
  return new GrpcServer({ maxConnectionAgeMs: UNARY_MAX_CONNECTION_AGE_MS, ...opts }).add(
    auth.AuthServiceService,
    {
      verifyToken: async ({ token }) => decide(await store.findByToken(token), clock()),
      ...accountHandlers(accounts, opts.registry),
    },
  );
}
