import { accountRoutes } from './account.ts';
import { filingRoutes } from './filings.ts';
import { marketRoutes } from './market.ts';
import { optionRoutes } from './options.ts';
import type { RouteDef } from './route.ts';
import { stockRoutes } from './stocks.ts';

/** Every public route, in the order the OpenAPI document lists them. */
export const catalogue: readonly RouteDef[] = [
  ...stockRoutes,
  ...filingRoutes,
  ...optionRoutes,
  ...marketRoutes,
  ...accountRoutes,
];

export type { RouteDef, RouteInput, UpstreamName, Upstreams } from './route.ts';
