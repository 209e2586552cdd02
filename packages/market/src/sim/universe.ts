import { type DayNumber, day, formatDay, tradingDayOnOrBefore, yearOf } from '@mdp/nse-calendar';
import { withCheckDigit } from '../isin.ts';
import type { AliasRow, CorporateActionRow, StockRow } from '../model.ts';
import type { StockType } from '../vocabulary.ts';
import {
  AMCS,
  brandName,
  COMMODITY_ETFS,
  companyName,
  freeSymbol,
  INDEX_NAMES,
  symbolCandidates,
} from './names.ts';
import type { Rng } from './rng.ts';
import { DEBT_CLASS, FUND_CLASS, SECTORS, type SectorDef } from './taxonomy.ts';

/** How a generated stock trades: what the price model needs beyond the stock row. */
export interface PricePlan {
  stockId: number;
  /** First and last day with bars (inclusive); none when the stock left before the history starts. */
  firstDay: DayNumber;
  lastDay: DayNumber;
  /** Target market capitalisation in rupees crore on the last bar. */
  marketCapCr: number;
  sectorIndex: number;
  startPrice: number;
  beta: number;
  idioVol: number;
  drift: number;
  turnover: number;
  deliveryMean: number;
}

export interface Universe {
  stocks: StockRow[];
  aliases: AliasRow[];
  actions: CorporateActionRow[];
  plans: Map<number, PricePlan>;
  /** Index into SECTORS of each equity (funds and bonds have none). */
  sectorOf: Map<number, SectorDef>;
}

export interface UniverseOptions {
  /** Total stocks, listed and delisted (the default dataset has 8,200). */
  size: number;
  historyStart: DayNumber;
  endDay: DayNumber;
}

type Kind =
  | 'main'
  | 'sme'
  | 'etf'
  | 'index_fund'
  | 'bond'
  | 'reit'
  | 'invit'
  | 'closed_end_fund'
  | 'delisted';

/** Shares of the universe by kind, from the make-up of the real NSE/BSE lists. */
const MIX: [Kind, number][] = [
  ['main', 0.732],
  ['sme', 0.055],
  ['etf', 0.03],
  ['index_fund', 0.008],
  ['bond', 0.015],
  ['reit', 0.001],
  ['invit', 0.001],
  ['closed_end_fund', 0.004],
  ['delisted', 0.154],
];

const ALNUM = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const DELISTING_REASONS = [
  'Compulsory Delisting',
  'Voluntary Delisting',
  'Delisting - Liquidation',
  'Merger / Amalgamation',
];

function kindsFor(size: number): Kind[] {
  const kinds: Kind[] = [];
  for (const [kind, share] of MIX) {
    const n = Math.max(1, Math.round(size * share));
    for (let i = 0; i < n; i++) kinds.push(kind);
  }
  while (kinds.length > size) kinds.splice(kinds.indexOf('main'), 1);
  while (kinds.length < size) kinds.push('main');
  return kinds;
}

class Uniques {
  private readonly used = new Set<string>();
  take(candidates: Iterable<string>): string {
    for (const c of candidates) {
      if (!this.used.has(c)) {
        this.used.add(c);
        return c;
      }
    }
    throw new Error('no unique candidate left');
  }
  has(value: string): boolean {
    return this.used.has(value);
  }
  add(value: string): void {
    this.used.add(value);
  }
}

/** The stock master of the default dataset: who is listed where, classified how, renamed when. */
export function generateUniverse(rng: Rng, opts: UniverseOptions): Universe {
  const stocks: StockRow[] = [];
  const aliases: AliasRow[] = [];
  const actions: CorporateActionRow[] = [];
  const plans = new Map<number, PricePlan>();
  const sectorOf = new Map<number, SectorDef>();
  const names = new Uniques();
  const symbols = new Uniques();
  const isins = new Uniques();
  const bseCodes = new Uniques();
  const sectorWeights = SECTORS.map((s) => s.weight);
  const span = opts.endDay - opts.historyStart;

  const isinFor = (prefix: 'INE' | 'INF', securityType: string) =>
    isins.take(
      (function* () {
        for (;;) {
          let issuer = '';
          for (let i = 0; i < 4; i++) issuer += ALNUM[rng.int(0, 35)];
          yield withCheckDigit(
            `${prefix}${issuer}${securityType}${ALNUM[rng.int(0, 9)]}${ALNUM[rng.int(0, 35)]}`,
          );
        }
      })(),
    );
  const bseCode = () =>
    bseCodes.take(
      (function* () {
        for (;;) yield String(rng.int(500_001, 544_999));
      })(),
    );
  // A name template can run out of combinations in a large universe: then a series number tells apart.
  const uniqueName = (make: () => string) =>
    names.take(
      (function* () {
        for (let i = 0; ; i++) yield i < 50 ? make() : `${make()} ${Math.floor(i / 50) + 1}`;
      })(),
    );
  // Listings happen on trading days.
  const listingDay = (inWindow: boolean): DayNumber =>
    tradingDayOnOrBefore(
      inWindow
        ? opts.historyStart + rng.int(30, span - 20)
        : day('1992-01-01') + rng.int(0, opts.historyStart - day('1992-01-01') - 1),
    );

  kindsFor(opts.size).forEach((kind, index) => {
    const id = index + 1;
    const isFund = kind === 'etf' || kind === 'index_fund' || kind === 'closed_end_fund';
    const sector =
      isFund || kind === 'bond' || kind === 'reit' || kind === 'invit'
        ? undefined
        : SECTORS[rng.weighted(sectorWeights)]!;
    const industry = sector ? rng.pick(sector.industries) : undefined;
    let name: string;
    let stockType: StockType = 'equity';
    let macro: string | null = sector?.macro ?? null;
    let sectorName: string | null = sector?.sector ?? null;
    let industryName: string | null = industry?.industry ?? null;
    if (kind === 'etf' || kind === 'index_fund') {
      stockType = kind;
      const amc = rng.pick(AMCS);
      const underlying = kind === 'etf' && rng.chance(0.2) ? rng.pick(COMMODITY_ETFS) : rng.pick(INDEX_NAMES);
      name = uniqueName(() =>
        kind === 'etf'
          ? `${amc} ${underlying} ETF${rng.chance(0.3) ? ` ${rng.pick(['BeES', 'Fund', 'Plan'])}` : ''}`
          : `${amc} ${underlying} Index Fund${rng.chance(0.5) ? ' - Direct Growth' : ''}`,
      );
      [macro, sectorName, industryName] = [
        FUND_CLASS.macro,
        FUND_CLASS.sector,
        kind === 'etf' ? 'Exchange Traded Fund' : 'Index Fund',
      ];
    } else if (kind === 'closed_end_fund') {
      stockType = 'closed_end_fund';
      name = uniqueName(
        () => `${rng.pick(AMCS)} Fixed Term Plan Series ${rng.int(10, 99)} - ${rng.int(1100, 1900)} Days`,
      );
      [macro, sectorName, industryName] = [FUND_CLASS.macro, FUND_CLASS.sector, 'Closed Ended Fund'];
    } else if (kind === 'bond') {
      stockType = 'bond';
      const govt = rng.chance(0.4);
      name = uniqueName(() =>
        govt
          ? rng.chance(0.3)
            ? `Sovereign Gold Bond ${rng.int(2016, 2024)}-${rng.int(2016, 2024) % 100} Series ${rng.pick(['I', 'II', 'III', 'IV'])}`
            : `${rng.int(6, 7)}.${rng.int(10, 99)}% GS ${rng.int(2027, 2063)}`
          : `${companyName(rng, ['Finance', 'Capital', 'Housing Finance'])} NCD ${rng.int(7, 11)}.${rng.int(0, 9)}0% ${rng.int(2027, 2034)}`,
      );
      [macro, sectorName, industryName] = [
        DEBT_CLASS.macro,
        DEBT_CLASS.sector,
        govt ? 'Government Securities' : 'Corporate Bonds',
      ];
    } else if (kind === 'reit' || kind === 'invit') {
      stockType = kind;
      name = uniqueName(() =>
        kind === 'reit'
          ? `${rng.pick(['Prestige', 'Horizon', 'Skyline', 'Metro', 'Capital'])} ${rng.pick(['Office', 'Business Parks', 'Retail'])} REIT`
          : `${rng.pick(['Highway', 'Power Grid', 'Energy', 'Roadways', 'Transmission'])} ${rng.pick(['Infrastructure', 'InvIT', 'Infra'])} Trust`,
      );
      [macro, sectorName, industryName] =
        kind === 'reit' ? ['Consumer Discretionary', 'Realty', 'Realty'] : ['Utilities', 'Power', 'Power'];
    } else {
      name = uniqueName(() => companyName(rng, industry!.words));
    }

    const delisted = kind === 'delisted';
    const onNse =
      kind === 'main'
        ? rng.chance(0.47)
        : kind === 'delisted'
          ? rng.chance(0.3)
          : kind !== 'bond' || rng.chance(0.9);
    const onBse =
      kind === 'main'
        ? !onNse || rng.chance(0.75)
        : kind === 'sme'
          ? false
          : kind === 'delisted'
            ? !onNse || rng.chance(0.5)
            : rng.chance(0.3);
    const code = onBse || !onNse ? bseCode() : null;
    const nseSymbol = onNse ? symbols.take(symbolCandidates(name)) : null;
    // As the importers do: a listing's NSE symbol, else the BSE code (which, unlike symbols, is never reused).
    const symbol = (delisted ? (code ?? nseSymbol) : (nseSymbol ?? code))!;
    symbols.add(symbol);
    const isin = isFund
      ? isinFor('INF', '01')
      : kind === 'bond'
        ? isinFor('INE', '07')
        : isinFor('INE', '01');

    let listedOn = listingDay(
      !delisted && kind !== 'closed_end_fund' && rng.chance(kind === 'sme' ? 0.6 : 0.1),
    );
    let delistedOn: DayNumber | null = null;
    if (delisted) {
      delistedOn = rng.chance(0.3)
        ? opts.historyStart + rng.int(20, span - 5)
        : day('2002-01-01') + rng.int(0, opts.historyStart - day('2002-01-01'));
      if (listedOn >= delistedOn - 200)
        listedOn = tradingDayOnOrBefore(Math.max(day('1990-01-01'), delistedOn - rng.int(400, 6_000)));
    }
    const size =
      kind === 'sme'
        ? Math.exp(Math.log(60) + 0.8 * rng.normal())
        : kind === 'delisted'
          ? Math.exp(Math.log(60) + 1.3 * rng.normal())
          : kind === 'bond'
            ? Math.exp(Math.log(400) + 0.7 * rng.normal())
            : Math.exp(Math.log(onNse ? 1400 : 120) + (onNse ? 1.9 : 1.3) * rng.normal());
    const marketCapCr = Math.min(2_000_000, Math.max(3, size));
    const faceValue =
      stockType === 'equity' ? rng.pick([1, 2, 5, 10, 10, 10]) : stockType === 'bond' ? 1000 : 10;

    const stock: StockRow = {
      id,
      symbol,
      name,
      isin,
      nseSymbol,
      bseCode: code,
      bseSymbol: code ? (nseSymbol ?? freeSymbol(name, () => false)!) : null,
      series: nseSymbol ? seriesFor(stockType, kind) : null,
      stockType,
      board: kind === 'sme' ? 'sme' : 'main',
      macroSector: macro,
      sector: sectorName,
      industry: industryName,
      basicIndustry: null,
      status: delisted ? 'delisted' : 'listed',
      listedOn,
      delistedOn,
      delistingReason: delisted ? rng.pick(DELISTING_REASONS) : null,
      faceValue,
      sharesOutstanding: null,
      about: null,
    };
    stocks.push(stock);
    if (sector) sectorOf.set(id, sector);

    const firstDay = Math.max(listedOn, opts.historyStart);
    const lastDay = delistedOn === null ? opts.endDay : tradingDayOnOrBefore(delistedOn - 1);
    if (lastDay - firstDay >= 5) {
      const sizeZ = Math.log10(marketCapCr);
      plans.set(id, {
        stockId: id,
        firstDay,
        lastDay,
        marketCapCr,
        sectorIndex: sector ? SECTORS.indexOf(sector) : -1,
        // Larger companies have dearer shares (a median near Rs 140 at Rs 1,000 crore of market value,
        // near Rs 1,100 at Rs 10 lakh crore), so share counts and traded volumes stay realistic.
        startPrice:
          stockType === 'bond'
            ? 1000 * (0.9 + 0.2 * rng.next())
            : Math.min(
                40_000,
                Math.max(
                  2,
                  Math.exp(Math.log(140) + 0.3 * Math.log(marketCapCr / 1000) + 1.0 * rng.normal()),
                ),
              ),
        beta: stockType === 'bond' ? 0.05 : Math.min(1.8, Math.max(0.3, 1 + 0.25 * rng.normal())),
        idioVol:
          stockType === 'bond'
            ? 0.002
            : isFund
              ? 0.002
              : Math.max(0.005, 0.033 - 0.0042 * sizeZ) * (0.8 + 0.4 * rng.next()),
        drift: (0.11 + 0.12 * rng.normal()) / 250,
        turnover: Math.exp(Math.log(0.0015) + 0.8 * rng.normal()),
        deliveryMean: stockType === 'equity' ? 25 + 50 * rng.next() : 70 + 25 * rng.next(),
      });
      if (stockType === 'equity' && !delisted && lastDay - firstDay > 120) {
        const action = corporateAction(rng, id, firstDay + 60, lastDay - 5, faceValue);
        if (action) {
          actions.push(action);
          if (action.kind === 'split') stock.faceValue = (faceValue * action.ratioOld) / action.ratioNew;
        }
      }
    }

    if (stockType === 'equity' && !delisted) {
      if (rng.chance(0.045)) aliases.push({ stockId: id, kind: 'brand', alias: brandName(rng), until: null });
      if (rng.chance(0.05)) {
        const until = opts.endDay - rng.int(30, 3_000);
        aliases.push({
          stockId: id,
          kind: 'former_name',
          alias: uniqueName(() => companyName(rng, industry!.words)),
          until,
        });
        if (nseSymbol && rng.chance(0.6)) {
          const former = aliases.at(-1)!.alias;
          const old = freeSymbol(former, (s) => symbols.has(s));
          if (old) {
            symbols.add(old);
            aliases.push({ stockId: id, kind: 'former_symbol', alias: old, until });
          }
        }
      }
    }
    stock.about = describe(stock, marketCapCr);
  });
  return { stocks, aliases, actions, plans, sectorOf };
}

function seriesFor(type: StockType, kind: Kind): string {
  if (kind === 'sme') return 'SM';
  switch (type) {
    case 'bond':
      return 'GB';
    case 'reit':
      return 'RR';
    case 'invit':
      return 'IV';
    case 'closed_end_fund':
      return 'MF';
    default:
      return 'EQ';
  }
}

const SPLITS: [number, number][] = [
  [10, 1],
  [5, 1],
  [2, 1],
  [10, 2],
];
const BONUSES: [number, number][] = [
  [1, 1],
  [1, 2],
  [2, 1],
  [3, 1],
  [1, 4],
];

function corporateAction(
  rng: Rng,
  stockId: number,
  from: DayNumber,
  to: DayNumber,
  faceValue: number,
): CorporateActionRow | undefined {
  const r = rng.next();
  if (r > 0.08) return undefined;
  const exDate = tradingDayOnOrBefore(from + rng.int(0, Math.max(0, to - from)));
  if (r < 0.04 && faceValue >= 2) {
    const [oldFv, newFv] = faceValue === 10 ? rng.pick(SPLITS) : [faceValue, 1];
    return {
      stockId,
      exDate,
      kind: 'split',
      ratioNew: oldFv / newFv,
      ratioOld: 1,
      description: `Face value split from Rs ${faceValue} to Rs ${(faceValue * newFv) / oldFv}`,
    };
  }
  const [bonus, held] = rng.pick(BONUSES);
  return {
    stockId,
    exDate,
    kind: 'bonus',
    ratioNew: bonus + held,
    ratioOld: held,
    description: `Bonus ${bonus}:${held}`,
  };
}

const KIND_PHRASES: Record<StockType, string> = {
  equity: 'a company',
  etf: 'an ETF',
  index_fund: 'an index fund',
  closed_end_fund: 'a closed-end fund',
  bond: 'a bond',
  reit: 'a REIT',
  invit: 'an InvIT',
  preference: 'a preference share',
  warrant: 'a warrant',
  depository_receipt: 'a depository receipt',
};

function describe(s: StockRow, marketCapCr: number): string {
  const where = [s.nseSymbol && (s.board === 'sme' ? 'NSE Emerge' : 'NSE'), s.bseCode && 'BSE']
    .filter(Boolean)
    .join(' and ');
  const since = s.listedOn === null ? '' : ` since ${yearOf(s.listedOn)}`;
  if (s.stockType !== 'equity')
    return `${s.name} is ${KIND_PHRASES[s.stockType]} traded on ${where}${since}.`;
  const size =
    marketCapCr >= 20_000
      ? 'large-cap'
      : marketCapCr >= 5_000
        ? 'mid-cap'
        : marketCapCr >= 500
          ? 'small-cap'
          : 'micro-cap';
  const left =
    s.delistedOn === null ? '' : ` It was delisted on ${formatDay(s.delistedOn)} (${s.delistingReason}).`;
  return `${s.name} is a ${size} company in the ${s.industry} industry (${s.sector}), listed on ${where}${since}.${left}`;
}
