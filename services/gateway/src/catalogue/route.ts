import type { AsyncClient } from '@mdp/grpc';
import type { common, equities, filings, ledger, options } from '@mdp/proto';
import { type Static, type TObject, type TSchema, Type } from '@sinclair/typebox';

/** The typed gRPC clients of the services that own data, one channel each. */
export interface Upstreams {
  equities: AsyncClient<typeof equities.EquitiesDataServiceService>;
  filings: AsyncClient<typeof filings.FilingsReaderServiceService>;
  options: AsyncClient<typeof options.OptionsAnalyticsServiceService>;
  /** The ledger shard that owns the account. */
  ledger: (accountId: string) => AsyncClient<typeof ledger.QuotaLedgerServiceService>;
}

export type UpstreamName = keyof Upstreams;

import type { Principal } from '../authenticator.ts';

/** Who is calling, once the bearer token is verified. */
export type Caller = Principal;

export interface RouteInput<P extends TObject, Q extends TObject> {
  params: Static<P>;
  query: Static<Q>;
  caller: Caller | null;
  /** On a free ledger route: what this gateway's lease on the caller's account has charged, if it holds one. */
  leaseCharges?: ledger.LeaseCharges;
}

/**
 * One public route: the single source for routing, validation, handler types, `meta.route` and the
 * OpenAPI document.
 */
export interface RouteDef<P extends TObject = TObject, Q extends TObject = TObject> {
  /** `meta.route` and the OpenAPI operationId. */
  operationId: string;
  /** The MCP tool's name when it is not the operation id in snake_case. */
  toolName?: string;
  /** OpenAPI path template, e.g. `/v1/stocks/{symbol}/quote`. */
  path: string;
  summary: string;
  description?: string;
  tag: 'Stocks' | 'Filings' | 'Options' | 'Indices' | 'Market' | 'Account' | 'Meta';
  /** Costs one unit on a 200 (false for the two free routes). */
  metered: boolean;
  /** Needs a bearer token (true for all but the interface description). */
  authenticated: boolean;
  params: P;
  query: Q;
  /** Schema of `data` in a 200, where SPEC gives its fields. */
  data?: TSchema;
  /** Rules that span parameters; throws `ApiError` naming the parameter at fault. */
  check?: (input: RouteInput<P, Q>) => void;
  /** Which service answers, and how the validated input becomes its request. */
  upstream?: UpstreamName;
  dispatch?: (upstreams: Upstreams, input: RouteInput<P, Q>) => Promise<common.Document>;
  /**
   * A free route whose document states the caller's units used in the IST day and month: its 200 carries
   * the rate-limit headers of the binding window (SPEC 8: X-RateLimit-Reset on every 200), as a metered
   * 200 would, taking nothing for itself.
   */
  usedOf?: (data: string) => QuotaUse;
}

/** What a usage document says the caller has used, and when. */
export interface QuotaUse {
  day: number;
  month: number;
  /**
   * An instant of the IST day the document counts (its last millisecond): the windows the headers name
   * are the ones its service counted in, whatever this process's clock says.
   */
  within: number;
}

/** Keeps each route's parameter types flowing into its `check` and `dispatch`. */
export function defineRoute<P extends TObject, Q extends TObject>(def: RouteDef<P, Q>): RouteDef {
  return def as unknown as RouteDef;
}

export const noParams = Type.Object({});

/** SPEC 4 and 7 for every list of a stock, said in each list route's description. */
export const LIST_RULE =
  'A stock with nothing to list is a 200 with an empty list (one unit); a symbol that names no stock is a 404 `not_found` (free).';
