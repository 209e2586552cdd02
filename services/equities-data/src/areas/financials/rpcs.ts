import { jsonDocument, RpcError } from '@mdp/grpc';
import { hasFinancials } from '@mdp/market';
import { day, istToday } from '@mdp/nse-calendar';
import type { AreaDeps } from '../area.ts';
import type { EquitiesDataImpl } from '../stocks/rpcs.ts';
import { financialsDocument, MAX_PERIODS, SECTIONS, type Section } from './document.ts';
import type { FinancialsSource } from './store.ts';

/** GetFinancials: the SPEC 2.3 document of a company, as known on the clock's IST day. */
export function financialsRpcs(deps: AreaDeps<FinancialsSource>): Pick<EquitiesDataImpl, 'getFinancials'> {
  return {
    async getFinancials(req) {
      const section = req.section;
      if (section !== undefined && !(SECTIONS as readonly string[]).includes(section))
        throw RpcError.invalidArgument('section', `section must be one of ${SECTIONS.join(', ')}`);
      const limit = req.periods;
      if (limit !== undefined && (!Number.isInteger(limit) || limit < 1 || limit > MAX_PERIODS))
        throw RpcError.invalidArgument('periods', `periods must be a whole number from 1 to ${MAX_PERIODS}`);
      const e = deps.dataset().resolve(req.symbol);
      if (!e) throw RpcError.notFound(`no stock with symbol "${req.symbol}"`);
      if (!hasFinancials(e.row))
        throw RpcError.notFound(
          `${e.row.symbol} is not a company's shares (stock type ${e.row.stockType}): it has no financial statements`,
        );
      const rows = await deps.data().periods(e.row.id);
      if (rows.length === 0) throw RpcError.notFound(`no financial statements held for ${e.row.symbol}`);
      const today = day(istToday(deps.clock));
      const sections = financialsDocument(rows, today, { section: section as Section | undefined, limit });
      const source = rows.some((r) => r.source === 'generated') ? 'generated' : 'nse-xbrl';
      return jsonDocument(
        { symbol: e.row.symbol, name: e.row.name, unit: 'INR crore (EPS in INR)', source, ...sections },
        { as_of_day: istToday(deps.clock) },
      );
    },
  };
}
