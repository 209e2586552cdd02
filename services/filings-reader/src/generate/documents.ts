import { fiscalYearOf, Rng } from '@mdp/market';
import type { DocType } from '@mdp/market/vocabulary';
import { day } from '@mdp/nse-calendar';
import type { Company } from './companies.ts';
import { inr, round } from './format.ts';

export interface GeneratedDocument {
  symbol: string;
  docType: DocType;
  period: string;
  date: string;
  title: string;
  /** Text of each page; the PDF renders exactly these, one per page. */
  pages: string[];
}

const ANALYSTS = [
  'Amit Shah',
  'Priya Menon',
  'Rahul Iyer',
  'Sneha Kulkarni',
  'Vikram Rao',
  'Neha Gupta',
  'Karan Mehta',
  'Divya Nair',
];
const BROKERS = [
  'Axis Capital',
  'Kotak Securities',
  'ICICI Securities',
  'Motilal Oswal',
  'Nuvama',
  'JM Financial',
  'Ambit',
  'HDFC Securities',
];
const EXECS = [
  'Rajesh Kumar',
  'Anita Desai',
  'Suresh Reddy',
  'Meera Pillai',
  'Arvind Joshi',
  'Kavita Sharma',
];
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

function longDate(iso: string): string {
  const [y, m, d] = iso.split('-').map(Number) as [number, number, number];
  return `${MONTHS[m - 1]} ${d}, ${y}`;
}

// An A4 page at 9 pt holds about 60 lines of about 100 characters; stay well inside so no text spills over.
const MAX_LINES = 54;
const linesOf = (p: string) =>
  p.split('\n').reduce((n, l) => n + Math.max(1, Math.ceil(l.length / 95)), 0) + 1;

/** Fills pages with paragraphs until each holds about `target` characters; every page ends with its own footer. */
function paginate(
  paragraphs: Iterable<string>,
  pageCount: number,
  footer: (n: number) => string,
  target = 2300,
): string[] {
  const it = paragraphs[Symbol.iterator]();
  const pages: string[] = [];
  let pending: IteratorResult<string> | undefined;
  for (let n = 1; n <= pageCount; n++) {
    const parts: string[] = [];
    let len = 0;
    let lines = 0;
    while (len < target && lines < MAX_LINES - 8) {
      const p = pending ?? it.next();
      pending = undefined;
      if (p.done) break;
      const l = linesOf(p.value);
      if (len > 0 && (len + p.value.length > target + 400 || lines + l > MAX_LINES - 3)) {
        pending = p;
        break;
      }
      parts.push(p.value);
      len += p.value.length + 2;
      lines += l;
    }
    parts.push(footer(n));
    pages.push(parts.join('\n\n'));
  }
  return pages;
}

function* concallParagraphs(c: Company, period: string, rng: Rng): Generator<string> {
  const q = c.revenueCr / 4;
  const ceo = rng.pick(EXECS);
  const cfo = rng.pick(EXECS.filter((e) => e !== ceo));
  const rev = q * rng.uniform(0.85, 1.2);
  const growth = round(rng.uniform(-8, 28));
  const margin = round(rng.uniform(8, 26));
  const marginBps = rng.int(-150, 220);
  const pat = rev * rng.uniform(0.05, 0.15);
  const patGrowth = round(rng.uniform(-15, 40));
  yield `Moderator: Ladies and gentlemen, good day and welcome to the ${c.name} ${period} earnings conference call. As a reminder, all participant lines will be in the listen-only mode. I now hand the conference over to Mr. ${ceo}, Managing Director. Thank you and over to you, sir.`;
  yield `${ceo}: Good evening everyone and thank you for joining us. I will take you through the performance of ${period}. Consolidated revenues for the quarter were Rs ${inr(rev)} crore, ${growth < 0 ? `down ${Math.abs(growth)}%` : `registering a growth of ${growth}%`} year-on-year. EBITDA for the quarter stood at Rs ${inr((rev * margin) / 100)} crore and the EBITDA margin was ${margin}%, ${marginBps >= 0 ? 'up' : 'down'} ${Math.abs(marginBps)} bps compared with the same quarter last year.`;
  yield `Profit after tax was Rs ${inr(pat)} crore, ${patGrowth >= 0 ? 'up' : 'down'} ${Math.abs(patGrowth)}% year-on-year. The ${c.sector.toLowerCase()} business saw ${growth > 10 ? 'strong' : 'steady'} demand in domestic markets, and we commissioned new capacity during the quarter which added to volumes.`;
  yield `Going forward, we expect revenue growth of ${rng.int(10, 18)}% to ${rng.int(19, 25)}% for FY${period.slice(-2)} and we plan to invest Rs ${inr(rng.int(200, 3000))} crore in capex over the next two years. We remain confident of sustaining EBITDA margins in the range of ${Math.floor(margin - 1)}% to ${Math.ceil(margin + 2)}% in the medium term.`;
  yield `Among the challenges, input cost inflation and volatility in raw material prices continued to put pressure on gross margins. Competition from imports remained a concern in a few product lines, and export markets were subdued because of weak demand in Europe.`;
  yield `${cfo}: Thank you. On the balance sheet, net debt stood at Rs ${inr(rng.int(0, 4000))} crore at the end of the quarter. Working capital days improved by ${rng.int(2, 12)} days and operating cash flow for the half year was Rs ${inr(rev * 0.2)} crore. The board has approved an interim dividend of Rs ${round(rng.uniform(1, 12), 2)} per share.`;
  const topics = [
    'demand outlook in the domestic market',
    'pricing and realisations',
    'the capex plan and its funding',
    'export markets and the order book',
    'raw material costs and margins',
    'new product launches',
    'working capital and cash flows',
    'the competitive intensity',
  ];
  for (let i = 0; ; i++) {
    const analyst = rng.pick(ANALYSTS);
    const broker = rng.pick(BROKERS);
    const topic = rng.pick(topics);
    yield `Moderator: The next question is from the line of ${analyst} from ${broker}. Please go ahead.`;
    yield `${analyst}: Thank you for the opportunity. My question is on ${topic}. Could you give some colour on how the quarter played out and what you expect over the next two quarters?`;
    yield `${rng.pick([ceo, cfo])}: Thanks for the question. On ${topic}, the quarter was ${rng.pick(['better than expected', 'in line with our plan', 'slightly softer than we had hoped'])}. ${rng.pick(
      [
        `Volumes grew ${rng.int(3, 20)}% year-on-year and realisations improved by ${round(rng.uniform(0.5, 4))}%.`,
        `We saw some pressure from lower prices in the first half of the quarter, which recovered in the last month.`,
        `We expect the second half to be stronger, supported by the festive season and government spending.`,
        `Our order book stands at Rs ${inr(rng.int(500, 20000))} crore, which gives us visibility for the next ${rng.int(6, 24)} months.`,
        `Margins were affected by a one-time cost of Rs ${inr(rng.int(5, 120))} crore, which will not recur.`,
      ],
    )} ${rng.pick([
      'We will continue to focus on cost efficiencies and premiumisation.',
      'The new plant is on track to be commissioned by the end of the year.',
      'We do not see any major risk to our guidance at this point.',
      'Any slowdown in rural demand remains a risk we are watching closely.',
      'We are also evaluating a few inorganic opportunities in adjacent segments.',
    ])}`;
    if (i > 400) return;
  }
}

function* reportParagraphs(c: Company, fy: string, rng: Rng): Generator<string> {
  const sections = [
    "Chairman's Message",
    "Managing Director's Review",
    'Management Discussion and Analysis',
    "Board's Report",
    'Report on Corporate Governance',
    'Business Responsibility and Sustainability Report',
    'Independent Auditor’s Report',
    'Standalone Financial Statements',
    'Notes to the Standalone Financial Statements',
    'Consolidated Financial Statements',
    'Notes to the Consolidated Financial Statements',
  ];
  const rev = c.revenueCr * rng.uniform(0.9, 1.1);
  const margin = round(rng.uniform(9, 24));
  yield `# ${c.name} - Annual Report ${fy}`;
  yield `In ${fy}, revenue from operations was Rs ${inr(rev)} crore, up ${round(rng.uniform(4, 22))}% over the previous year. EBITDA was Rs ${inr((rev * margin) / 100)} crore with an EBITDA margin of ${margin}%. Profit after tax was Rs ${inr(rev * 0.08)} crore and the Board has recommended a final dividend of Rs ${round(rng.uniform(2, 20), 2)} per share.`;
  for (let s = 0; ; s++) {
    const section = sections[s % sections.length] as string;
    yield `## ${section}${s >= sections.length ? ` (continued, part ${Math.floor(s / sections.length) + 1})` : ''}`;
    for (let k = 0; k < 14; k++) {
      const note = rng.int(1, 48);
      yield rng.pick([
        `The Company operates ${rng.int(2, 14)} manufacturing facilities across India and serves customers in ${rng.int(10, 60)} countries. During the year, capacity utilisation averaged ${rng.int(60, 95)}%, and the Company invested Rs ${inr(rng.int(50, 2000))} crore in capital expenditure to expand and modernise its plants.`,
        `Key risks include volatility in commodity prices, foreign exchange fluctuations, changes in regulation and competition. The Risk Management Committee reviews these risks every quarter and the mitigation plans are monitored by the Board.`,
        `Note ${note}: Trade receivables are stated net of an allowance for expected credit losses of Rs ${inr(rng.int(1, 90))} crore (previous year Rs ${inr(rng.int(1, 90))} crore). The ageing of receivables is reviewed regularly and no significant increase in credit risk has been observed.`,
        `The Company expects demand to remain healthy in ${fy.replace(/\d+$/, (y) => String(Number(y) + 1))}, supported by infrastructure spending and rising consumption. The Company plans to launch ${rng.int(3, 15)} new products and to increase its distribution reach by ${rng.int(5, 25)}%.`,
        `The Board met ${rng.int(4, 9)} times during the year. The Audit Committee comprises ${rng.int(3, 5)} directors, all of whom are financially literate, and the majority of them are independent directors.`,
        `Employee benefit expenses for the year were Rs ${inr(rev * rng.uniform(0.05, 0.12))} crore. The Company had ${inr(rng.int(800, 40000))} permanent employees at the end of the year, and the median remuneration increased by ${round(rng.uniform(3, 11))}%.`,
        `Energy consumption per tonne of output fell by ${round(rng.uniform(1, 6))}% during the year, and renewable sources now meet ${rng.int(10, 60)}% of the Company's power requirement. Water recycled at our plants was ${inr(rng.int(100, 9000))} kilolitres.`,
        `Revenue from operations ${inr(rev * rng.uniform(0.2, 0.3))} ${inr(rev * rng.uniform(0.18, 0.28))}; Other income ${inr(rng.int(10, 400))} ${inr(rng.int(10, 400))}; Finance costs ${inr(rng.int(5, 600))} ${inr(rng.int(5, 600))} (all figures in Rs crore, current year and previous year).`,
      ]);
    }
  }
}

function* offerParagraphs(c: Company, kind: 'drhp' | 'rhp', date: string, rng: Rng): Generator<string> {
  // The last fiscal year closed before the document, and the figures' window back from it.
  const fy = fiscalYearOf(day(date)) - 1;
  const issue = rng.int(300, 6000);
  yield `# ${kind === 'drhp' ? 'Draft Red Herring Prospectus' : 'Red Herring Prospectus'} - ${c.name}`;
  yield `Initial public offering of equity shares of face value Rs ${rng.pick([1, 2, 5, 10])} each aggregating up to Rs ${inr(issue)} crore, comprising a fresh issue of up to Rs ${inr(Math.round(issue * 0.4))} crore and an offer for sale.`;
  for (;;) {
    yield `## ${rng.pick(['Risk Factors', 'Objects of the Offer', 'Our Business', 'Industry Overview', 'Financial Information', 'Legal and Other Information', 'Capital Structure'])}`;
    for (let k = 0; k < 10; k++)
      yield rng.pick([
        `We depend on a limited number of customers for a significant portion of our revenue; our top ten customers contributed ${rng.int(30, 80)}% of revenue from operations in the last fiscal. Any loss of these customers could adversely affect our business.`,
        `The Net Proceeds are proposed to be used for repayment of borrowings of Rs ${inr(rng.int(50, 800))} crore, capital expenditure of Rs ${inr(rng.int(50, 900))} crore and general corporate purposes.`,
        `Our revenue from operations grew at a CAGR of ${round(rng.uniform(8, 40))}% between Fiscal ${fy - 2} and Fiscal ${fy}, and our EBITDA margin was ${round(rng.uniform(8, 30))}% in Fiscal ${fy}.`,
        `There are ${rng.int(2, 40)} outstanding legal proceedings involving our Company, the outcome of which is uncertain; an adverse outcome may affect our reputation and results of operations.`,
        `The industry is expected to grow at ${round(rng.uniform(6, 18))}% annually to Rs ${inr(rng.int(20000, 400000))} crore by Fiscal ${fy + 5}, driven by rising incomes and policy support.`,
      ]);
  }
}

function* presentationParagraphs(c: Company, period: string, rng: Rng): Generator<string> {
  const rev = (c.revenueCr / 4) * rng.uniform(0.85, 1.2);
  yield `# ${c.name} - Investor Presentation ${period}`;
  for (;;) {
    yield `## ${rng.pick(['Performance Highlights', 'Segment Performance', 'Strategy', 'Outlook', 'ESG Update', 'Balance Sheet'])}`;
    yield [
      `- Revenue Rs ${inr(rev)} crore, up ${round(rng.uniform(1, 25))}% YoY`,
      `- EBITDA margin ${round(rng.uniform(8, 28))}%, ${rng.pick(['up', 'down'])} ${rng.int(10, 200)} bps`,
      `- PAT Rs ${inr(rev * 0.09)} crore, up ${round(rng.uniform(1, 30))}% YoY`,
      `- Capacity utilisation at ${rng.int(60, 96)}%; new line to be commissioned by Q4FY${period.slice(-2)}`,
      `- Net debt to EBITDA at ${round(rng.uniform(0, 2.5))}x`,
    ].join('\n');
  }
}

/** One filing of a company, page texts included; deterministic for a given company, type and period. */
/** The text seed of the default dataset; another seed gives other text and dates for the same filings. */
export const DEFAULT_SEED = 'filings-default';

export function generateDocument(
  c: Company,
  docType: DocType,
  period: string,
  date: string,
  opts: { pages?: number; seed?: string } = {},
): GeneratedDocument {
  const pageCount = opts.pages;
  const rng = Rng.named(opts.seed ?? DEFAULT_SEED, `${c.symbol}:${docType}:${period}`);
  const titles: Record<DocType, string> = {
    concall: `${c.name} ${period} earnings call transcript`,
    presentation: `${c.name} ${period} investor presentation`,
    annual_report: `${c.name} annual report ${period}`,
    drhp: `${c.name} draft red herring prospectus`,
    rhp: `${c.name} red herring prospectus`,
  };
  const defaults: Record<DocType, [number, number]> = {
    concall: [12, 20],
    presentation: [8, 16],
    annual_report: [150, 190],
    drhp: [60, 90],
    rhp: [60, 90],
  };
  const [lo, hi] = defaults[docType];
  const n = pageCount ?? rng.int(lo, hi);
  const source =
    docType === 'concall'
      ? concallParagraphs(c, period, rng)
      : docType === 'presentation'
        ? presentationParagraphs(c, period, rng)
        : docType === 'annual_report'
          ? reportParagraphs(c, period, rng)
          : offerParagraphs(c, docType, date, rng);
  const footer = (p: number) => `${c.symbol} ${docType} ${period} - page ${p} of ${n}`;
  const pages = paginate(source, n, footer);
  pages[0] = `${titles[docType]}\n${longDate(date)}\n\n${pages[0]}`;
  return { symbol: c.symbol, docType, period, date, title: titles[docType], pages };
}
