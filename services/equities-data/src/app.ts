import type { Pool } from '@mdp/db';
import {
  GrpcServer,
  type GrpcServerOptions,
  notFoundForEveryMethod,
  UNARY_MAX_CONNECTION_AGE_MS,
} from '@mdp/grpc';
import type { TradingCalendar } from '@mdp/nse-calendar';
import { calendar, equities } from '@mdp/proto';
import { AREAS, type AreaData } from './areas/index.ts';
import { type EquitiesDataImpl, type ServiceDeps, stockRpcs } from './areas/stocks/rpcs.ts';
import { calendarRpcs } from './calendar/rpc.ts';

export type { EquitiesDataImpl };

/** Answers while no dataset is loaded: every symbol, index and series is unknown. */
export const emptyDataset: EquitiesDataImpl = notFoundForEveryMethod(
  equities.EquitiesDataServiceService,
  'not in the equities dataset',
);

/**
 * Stocks, quotes and prices from the dataset, and each area's routes from its data (swapped together
 * on reload). Without area data only the stock routes answer; the rest stay NOT_FOUND.
 */
export function equitiesImpl(deps: ServiceDeps & { areas?: () => AreaData; pool?: Pool }): EquitiesDataImpl {
  const impl: EquitiesDataImpl = { ...emptyDataset, ...stockRpcs(deps) };
  const areas = deps.areas;
  if (areas)
    for (const area of AREAS) Object.assign(impl, area.rpcs({ ...deps, data: () => areas().get(area) }));
  return impl;
}

/**
 * Stocks, quotes, prices, financials, corporate data, indices and market flows over gRPC, and the
 * trading calendar in force (with `calendar`: the one loaded with the data served).
 */
export function buildApp(
  opts: GrpcServerOptions & { impl?: EquitiesDataImpl; calendar?: () => TradingCalendar },
): GrpcServer {
  const server = new GrpcServer({ maxConnectionAgeMs: UNARY_MAX_CONNECTION_AGE_MS, ...opts }).add(
    equities.EquitiesDataServiceService,
    opts.impl ?? emptyDataset,
  );
  return opts.calendar
    ? server.add(calendar.TradingCalendarServiceService, calendarRpcs(opts.calendar))
    : server;
}
