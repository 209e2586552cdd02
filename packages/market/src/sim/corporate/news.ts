import { type DayNumber, formatDay, istDateStart, tradingDays } from '@mdp/nse-calendar';
import type { StockRow } from '../../model.ts';
import type { NewsCategory, Sentiment } from '../../vocabulary.ts';
import { type GeneratedDataset, latestReportedFiscalYear } from '../dataset.ts';
import { generateFinancials } from '../financials/generate.ts';
import { resultsFilings } from '../financials/results.ts';
import { fiscalYearEnd } from '../financials/statements.ts';
import type { CreditRatingAction } from '../ratings.ts';
import { Rng } from '../rng.ts';
import type { CorporateEventRow, NewsRow } from './model.ts';
import { listedEquities } from './universe.ts';

const STREAM = 6_500_000;
/** News is generated over the last year of the dataset. */
export const NEWS_HISTORY_DAYS = 365;

const SOURCES = ['PTI', 'Reuters', 'Press release', 'Exchange filing', 'Business Standard', 'Mint'];

type Draft = Omit<NewsRow, 'id'>;

/** Epoch ms of a time of day in IST, `minutes` after the day's IST midnight. */
const istTime = (d: DayNumber, minutes: number) => istDateStart(formatDay(d)) + minutes * 60_000;

const COMPANY_STORIES: [Sentiment, (s: StockRow) => string, string][] = [
  [
    'positive',
    (s) => `${s.name} bags new orders from a state utility`,
    'The company said the orders will be executed over the next 18 months.',
  ],
  [
    'positive',
    (s) => `${s.name} commissions new manufacturing capacity`,
    'The plant adds capacity in its core business.',
  ],
  [
    'negative',
    (s) => `${s.name} receives tax demand notice; says it will contest`,
    'The company said it does not expect a material impact.',
  ],
  [
    'negative',
    (s) => `Fire at a ${s.name} facility; operations partly affected`,
    'No injuries were reported, the company said in a filing.',
  ],
  [
    'neutral',
    (s) => `${s.name} appoints new chief financial officer`,
    'The appointment takes effect from the next month.',
  ],
  [
    'neutral',
    (s) => `${s.name} board to consider fund raising`,
    'The board meeting was intimated to the exchanges.',
  ],
];

const MARKET_STORIES: [NewsCategory, Sentiment, (sector: string) => string][] = [
  ['markets', 'positive', (x) => `${x} stocks lead gains as benchmarks close higher`],
  ['markets', 'negative', (x) => `${x} stocks drag indices lower in broad sell-off`],
  ['markets', 'neutral', (x) => `Benchmarks end flat; ${x} stocks mixed`],
  ['economy', 'positive', (x) => `Strong demand data lift outlook for ${x} companies`],
  ['economy', 'negative', (x) => `Input cost pressure weighs on ${x} margins, analysts say`],
  ['global', 'negative', (x) => `Global risk-off mood hits ${x} stocks`],
  ['global', 'positive', (x) => `Foreign investors turn buyers in ${x} stocks`],
  ['commodities', 'neutral', (x) => `Commodity prices steady; ${x} stocks in focus`],
];

/**
 * One news feed for the market and for each company: stories derived from the dataset's own facts
 * (annual results, on the day the company's statements say they were filed; credit-rating actions,
 * dividends, splits and bonuses, listings) so a headline never contradicts the data, a few company
 * stories without figures, and daily market stories related to the largest companies of a sector.
 * Every related id is a listed equity of the dataset.
 */
export function generateNews(
  ds: GeneratedDataset,
  events: readonly CorporateEventRow[],
  ratings: readonly CreditRatingAction[] = ds.ratings,
): NewsRow[] {
  const end = ds.options.endDay;
  const from = end - NEWS_HISTORY_DAYS;
  const listed = listedEquities(ds);
  const byId = new Map(listed.map((s) => [s.id, s]));
  const rng = new Rng(ds.options.seed, STREAM);
  const drafts: Draft[] = [];
  const add = (
    d: DayNumber,
    category: NewsCategory,
    sentiment: Sentiment,
    headline: string,
    summary: string,
    stockIds: number[],
  ) => {
    if (d < from || d > end) return;
    drafts.push({
      publishedAt: istTime(d, rng.int(7 * 60, 20 * 60)),
      category,
      sentiment,
      headline,
      summary,
      source: rng.pick(SOURCES),
      stockIds,
    });
  };

  const latestFy = latestReportedFiscalYear(end);
  const annualOf = new Map<number, Map<number, number>>();
  for (const a of ds.annual) {
    if (!annualOf.has(a.stockId)) annualOf.set(a.stockId, new Map());
    annualOf.get(a.stockId)!.set(a.fiscalYear, a.netProfit);
  }
  // The day each company filed a year's audited results: its statements' filing day, which the
  // financials serve the year from and every other generated document dates those results by.
  const filedOn = new Map<number, Map<DayNumber, DayNumber>>();
  generateFinancials({ ...ds, stocks: listed }, (stockId, periods) => {
    const { years } = resultsFilings(periods, { to: end });
    filedOn.set(stockId, new Map(years.map((y) => [y.periodEnd, y.filed])));
  });
  for (const s of listed) {
    const years = annualOf.get(s.id);
    for (const fy of [latestFy - 1, latestFy]) {
      const now = years?.get(fy);
      const before = years?.get(fy - 1);
      const d = filedOn.get(s.id)?.get(fiscalYearEnd(fy));
      if (now === undefined || before === undefined || d === undefined) continue;
      if (now < 0) {
        add(
          d,
          'results',
          'negative',
          `${s.name} posts FY${fy} net loss of Rs ${(-now).toFixed(2)} crore`,
          `Net profit a year earlier: Rs ${before.toFixed(2)} crore.`,
          [s.id],
        );
        continue;
      }
      const change = before > 0 ? ((now - before) / before) * 100 : null;
      const headline =
        change === null
          ? `${s.name} swings to FY${fy} net profit of Rs ${now.toFixed(2)} crore`
          : `${s.name} FY${fy} net profit ${change >= 0 ? 'rises' : 'falls'} ${Math.abs(change).toFixed(1)}% to Rs ${now.toFixed(2)} crore`;
      add(
        d,
        'results',
        change === null || change >= 0 ? 'positive' : 'negative',
        headline,
        `Annual results for the year to 31 March ${fy}.`,
        [s.id],
      );
    }
    for (let i = rng.int(0, 3); i > 0; i--) {
      const [sentiment, headline, summary] = rng.pick(COMPANY_STORIES);
      add(from + rng.int(0, NEWS_HISTORY_DAYS), 'companies', sentiment, headline(s), summary, [s.id]);
    }
    if (s.listedOn !== null && s.listedOn >= from)
      add(
        s.listedOn,
        'ipo',
        'neutral',
        `${s.name} shares list on the exchanges`,
        `Trading began on ${formatDay(s.listedOn)}.`,
        [s.id],
      );
  }
  for (const r of ratings) {
    const s = byId.get(r.stockId);
    if (!s) continue;
    const verb = { upgrade: 'upgrades', downgrade: 'downgrades', reaffirm: 'reaffirms', assigned: 'assigns' }[
      r.action
    ];
    const sentiment: Sentiment =
      r.action === 'upgrade' ? 'positive' : r.action === 'downgrade' ? 'negative' : 'neutral';
    add(
      r.ratedOn,
      'companies',
      sentiment,
      `${r.agency} ${verb} ${s.name}'s ${r.instrument.toLowerCase()} at ${r.rating}`,
      `Outlook: ${r.outlook ?? 'none'}.`,
      [s.id],
    );
  }
  for (const e of events) {
    const s = byId.get(e.stockId);
    if (!s || e.kind !== 'dividend' || e.exDate === null) continue;
    add(
      e.exDate - rng.int(7, 20),
      'companies',
      'positive',
      `${s.name} fixes record date for dividend of Rs ${e.amount!.toFixed(2)} per share`,
      `Record date: ${formatDay(e.recordDate!)}.`,
      [s.id],
    );
  }
  for (const a of ds.actions) {
    const s = byId.get(a.stockId);
    if (!s) continue;
    add(
      a.exDate,
      'companies',
      'positive',
      `${s.name} shares trade ex-${a.kind} today (${a.description})`,
      'Prices before the ex-date are adjusted for the new share count.',
      [s.id],
    );
  }

  const bySector = new Map<string, StockRow[]>();
  for (const s of listed) if (s.sector) bySector.set(s.sector, [...(bySector.get(s.sector) ?? []), s]);
  const cap = (s: StockRow) => ds.plans.get(s.id)!.marketCapCr;
  const sectors = [...bySector.entries()].map(
    ([name, list]) => [name, list.sort((a, b) => cap(b) - cap(a)).slice(0, 5)] as const,
  );
  for (const d of tradingDays(from, end))
    for (let i = rng.int(1, 2); i > 0 && sectors.length > 0; i--) {
      const [sector, top] = rng.pick(sectors);
      const [category, sentiment, headline] = rng.pick(MARKET_STORIES);
      add(
        d,
        category,
        sentiment,
        headline(sector),
        `Among the sector's largest companies: ${top.map((s) => s.symbol).join(', ')}.`,
        top.map((s) => s.id),
      );
    }

  drafts.sort((a, b) => a.publishedAt - b.publishedAt || a.headline.localeCompare(b.headline));
  return drafts.map((d, i) => ({ id: i + 1, ...d }));
}
