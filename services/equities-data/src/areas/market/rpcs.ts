import { jsonDocument, RpcError } from '@mdp/grpc';
import { day, istToday } from '@mdp/nse-calendar';
import type { AreaDeps } from '../area.ts';
import type { EquitiesDataImpl } from '../stocks/rpcs.ts';
import { CHART_INTERVALS, type ChartInterval, fiiDiiDocument, SESSIONS } from './domain/cash-flows.ts';
import { fpiDocument } from './domain/fpi.ts';
import { positioning } from './domain/positioning.ts';
import type { MarketData } from './store.ts';

/**
 * GetFiiDii and GetFpiSectors, from memory. Only what is dated up to the clock's IST day is served.
 * The gateway validates chart_interval first; the check here keeps the service safe when called
 * directly.
 */
export function marketRpcs(
  deps: AreaDeps<MarketData>,
): Pick<EquitiesDataImpl, 'getFiiDii' | 'getFpiSectors'> {
  const today = () => day(istToday(deps.clock));
  return {
    async getFiiDii(req) {
      const interval = req.chart_interval;
      if (interval !== undefined && !Object.hasOwn(CHART_INTERVALS, interval))
        throw RpcError.invalidArgument(
          'chart_interval',
          `chart_interval takes ${Object.keys(CHART_INTERVALS).join(', ')}`,
        );
      const data = deps.data();
      const cash = fiiDiiDocument(data.cash, today(), interval as ChartInterval | undefined);
      if (!cash) throw RpcError.notFound('no FII/DII flows are held');
      return jsonDocument(
        { ...cash, fo_positioning: positioning(data.participants, data.fiiDerivatives, today()) },
        {
          unit: 'crore',
          sessions: cash.sessions.length,
          max_sessions: SESSIONS,
          chart_interval: interval ?? null,
          order: 'tables newest first; chart oldest first',
        },
      );
    },

    async getFpiSectors() {
      const doc = fpiDocument(deps.data().fpi, today());
      if (!doc) throw RpcError.notFound('no FPI sector data is held');
      return jsonDocument(doc, { sectors: doc.sectors.length, taxonomy: 'NSE sectors (the stock master)' });
    },
  };
}
