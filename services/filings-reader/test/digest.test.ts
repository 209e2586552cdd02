import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { extractiveDigest, SUMMARY_CAP } from '../src/digest/digest.ts';
import { extractMetrics, type KeyMetric } from '../src/digest/metrics.ts';
import { splitMarkdownPages } from '../src/ingest/pages.ts';
import { REALDATA } from './helpers.ts';

const filing = (name: string) =>
  splitMarkdownPages(readFileSync(new URL(`filings_text/${name}`, REALDATA), 'utf8'));
const LT = filing('LT_Q1FY25_press_release_2024-07-24.md');
const MM = filing('MM_Q4FY24_results_pack_2024-05-16.md');
const ACC = filing('ACC_Q1FY25_board_outcome_results_2024-07-29.md');

function has(metrics: KeyMetric[], metric: string, value: number, unit: KeyMetric['unit'], page?: number) {
  const hit = metrics.find(
    (m) =>
      m.metric === metric && m.value === value && m.unit === unit && (page === undefined || m.page === page),
  );
  expect(hit, `${metric} = ${value} ${unit}`).toBeDefined();
  return hit as KeyMetric;
}

// Every figure below was read by hand from the filing text (quoted in the comment) before writing the test.
describe('key metrics from the real results filings', () => {
  it('L&T Q1 FY25 press release', () => {
    const m = extractMetrics(LT);
    // "achieved Consolidated Revenues of ₹ 55,120 crore ... registering a y-o-y growth of 15%"
    expect(has(m, 'revenue', 55_120, 'crore', 1).label).toBe('Consolidated Revenues');
    has(m, 'revenue_growth', 15, '%', 1);
    // "posted a Consolidated Profit After Tax (PAT) of ₹ 2,786 crore, registering growth of 12%"
    has(m, 'profit', 2_786, 'crore', 1);
    has(m, 'profit_growth', 12, '%', 1);
    // "received orders worth ₹ 70,936 crore ... registering a y-o-y growth of 8%"
    has(m, 'order_inflow', 70_936, 'crore', 1);
    has(m, 'order_inflow_growth', 8, '%', 1);
    // "The consolidated order book of the group ... is at ₹ 490,881 crore"
    has(m, 'order_book', 490_881, 'crore', 1);
    // "The EBITDA margin of the segment during the quarter ended June 30, 2024 was at 5.8%." (Infrastructure)
    has(m, 'ebitda_margin', 5.8, '%', 2);
    // "The segment PBT for the quarter ended June 30, 2024 increased by 29% to ₹ 922 crore." (Financial Services)
    has(m, 'pbt', 922, 'crore');
    has(m, 'pbt_growth', 29, '%');
    // "Customer revenues of the segment ... at ₹ 1,375 crore registered a de-growth of 37% y-o-y"
    has(m, 'revenue', 1_375, 'crore');
    has(m, 'revenue_growth', -37, '%');
  });

  it('M&M Q4 FY24 results pack', () => {
    const m = extractMetrics(MM);
    // "Record profits: FY24 Standalone PAT Rs 10,718 cr., up 48%*"
    expect(has(m, 'profit', 10_718, 'crore').currency).toBe('INR');
    has(m, 'profit_growth', 48, '%');
    // "Consolidated PAT Rs 11,269 cr., up 25%#"
    has(m, 'profit', 11_269, 'crore');
    has(m, 'profit_growth', 25, '%');
    // "Robust FY24 RoE at 18.4%"
    has(m, 'roe', 18.4, '%');
    // "Dividend of Rs 21.10 per share, up 30%"
    expect(has(m, 'dividend', 21.1, 'currency').currency).toBe('INR');
    // "Standalone Q4 PBIT Rs 1,751 cr., up 49% and PBIT margin 8.8%, up 170 bps"
    has(m, 'ebit', 1_751, 'crore');
    has(m, 'ebit_growth', 49, '%');
    has(m, 'pbit_margin', 8.8, '%');
    has(m, 'pbit_margin_change_bps', 170, 'bps');
    // "Consolidated Q4 Revenue Rs 20,908 cr., up 22%; FY24 Revenue Rs 76,156 cr., up 24%"
    has(m, 'revenue', 20_908, 'crore');
    has(m, 'revenue', 76_156, 'crore');
    // "Q4 Tractor market share at 39.4%, down 130 bps"
    has(m, 'market_share', 39.4, '%');
    has(m, 'market_share_change_bps', -130, 'bps');
    // "Standalone Q4 PBIT Rs 825 cr., down 16%"
    has(m, 'ebit_growth', -16, '%');
  });

  it('ACC Q1 FY25 board outcome: prose figures only, never the garbled OCR tables', () => {
    const m = extractMetrics(ACC);
    // "2 subsidiaries whose unaudited interim financial results include total revenues of Rs. 83.41 Crore"
    has(m, 'revenue', 83.41, 'crore');
    // "include Group's share of net profit of Rs. 2.63 Crore"
    has(m, 'profit', 2.63, 'crore');
    expect(m.every((x) => !x.context.includes('|'))).toBe(true);
  });

  it('reads lakh and Indian digit grouping', () => {
    const m = extractMetrics(['Net profit for the quarter was Rs 4,52,300 lakh, up 12.5% year on year.']);
    expect(m).toEqual([
      expect.objectContaining({ metric: 'profit', value: 452_300, unit: 'lakh', currency: 'INR' }),
      expect.objectContaining({ metric: 'profit_growth', value: 12.5, unit: '%' }),
    ]);
  });
});

describe('extractive digest', () => {
  it('is deterministic and caps the summary at 6,000 characters, flagging the cut', () => {
    // Long sentences of distinct made-up words, so none is a near-repeat of another and many are kept.
    const word = (n: number) => `x${n.toString(26).replace(/\d/g, (d) => 'qrstuvwxyz'[Number(d)] as string)}`;
    const many = Array.from({ length: 40 }, (_, p) =>
      Array.from({ length: 8 }, (_, s) => {
        const base = (p * 8 + s) * 60 + 1000;
        return `Revenue grew ${s + 3}% as ${Array.from({ length: 50 }, (_, k) => word(base + k)).join(' ')}.`;
      }).join(' '),
    );
    const a = extractiveDigest(many);
    expect(a).toEqual(extractiveDigest(many));
    expect(a.summary.length).toBeLessThanOrEqual(SUMMARY_CAP);
    expect(a.truncated).toBe(true);
    const small = extractiveDigest(LT);
    expect(small.truncated).toBe(false);
    expect(small.summary.length).toBeGreaterThan(300);
  });

  it('finds highlights, risks and guidance in a real results filing', () => {
    const d = extractiveDigest(LT);
    expect(d.highlights.join(' ')).toMatch(/growth|grew/);
    expect(d.risks.join(' ')).toMatch(/de-growth|subdued|uncertain|decline|lower/i);
    expect(d.key_metrics.length).toBeGreaterThan(10);
    expect(d.headline_metrics[0]).toMatchObject({ metric: 'revenue', value: 55_120 });
  });

  it('splits Markdown filings on their page headings', () => {
    expect(LT.length).toBe(11);
    expect(MM.length).toBe(37);
    expect(LT[0]).toMatch(/^# Financial Results/);
  });
});
