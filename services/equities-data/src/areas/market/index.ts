import { generateMarketFlows } from '@mdp/market';
import { copyTable } from '../../store/copy.ts';
import { defineArea } from '../area.ts';
import { fiiDiiCash } from './importers/cash.ts';
import { nseFiiDerivatives } from './importers/fii-stats.ts';
import { nseParticipants } from './importers/participants.ts';
import { marketRpcs } from './rpcs.ts';
import { type MarketData, readMarketData } from './store.ts';
import { cashTable, fiiDerivativesTable, fpiTable, MARKET_TABLES, participantsTable } from './tables.ts';

/** Market-wide flows: FII/DII cash and F&O positioning, FPI sectors. */
export const marketArea = defineArea<MarketData>({
  name: 'market',
  tables: MARKET_TABLES,
  importKinds: {
    'fii-dii-cash': fiiDiiCash,
    'nse-participants': nseParticipants,
    'nse-fii-derivatives': nseFiiDerivatives,
  },
  async writeGenerated(client, market, log) {
    const flows = generateMarketFlows(market);
    const cash = await copyTable(client, cashTable, flows.cash);
    log(`  FII/DII flows of ${cash} sessions copied`);
    const participants = await copyTable(client, participantsTable, flows.participants);
    const derivatives = await copyTable(client, fiiDerivativesTable, flows.fiiDerivatives);
    const fpi = await copyTable(client, fpiTable, flows.fpiSectors);
    return `market: ${cash} sessions of FII/DII flows, ${participants} participant rows, ${derivatives} FII derivatives rows, ${fpi} FPI sector rows`;
  },
  read: readMarketData,
  rpcs: marketRpcs,
});
