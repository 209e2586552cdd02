// The documents the bench's reference servers answer (bench/bare-server.ts, bench/peer-server.ts): one
// shaped and sized like a quote (envelope, meta, about twenty fields), and a year of daily bars sized like
// the 365-day price page.

const quote = {
  symbol: 'ARAVALIHOU',
  name: 'Aravali Housing Limited',
  exchange: 'NSE',
  currency: 'INR',
  as_of: '2026-11-23',
  last_price: 1234.55,
  change: 12.3,
  change_pct: 1.01,
  open: 1222.0,
  high: 1240.0,
  low: 1218.1,
  prev_close: 1222.25,
  volume: 1834512,
  value: 2264512345.5,
  week52_high: 1400.0,
  week52_low: 980.5,
  market_cap: 123456789012,
  pe: 24.3,
  delivery_pct: 45.2,
  circuit: { upper: 1344.45, lower: 1100.05 },
};

/** A year of daily bars (about 250 sessions) shaped like the 365-day price page, for the same-size reference. */
const bars = Array.from({ length: 250 }, (_, i) => {
  const close = 1200 + ((i * 37) % 101) - 50 + i / 10;
  return {
    date: new Date(Date.UTC(2025, 10, 24) + Math.floor((i * 7) / 5) * 86_400_000).toISOString().slice(0, 10),
    open: Math.round((close - 3.15) * 100) / 100,
    high: Math.round((close + 9.4) * 100) / 100,
    low: Math.round((close - 11.85) * 100) / 100,
    close: Math.round(close * 100) / 100,
    volume: 1_500_000 + ((i * 7919) % 900_000),
    delivery_pct: 30 + ((i * 13) % 40) + 0.25,
  };
});

/** The quote-shaped answer, as the bare route and the peer answer it. */
export const quoteDocument = () => ({
  data: quote,
  meta: { as_of: new Date().toISOString(), route: 'getQuote' },
});

/** The price-page-shaped answer. */
export const pageDocument = () => ({
  data: { symbol: 'ARAVALIHOU', interval: 'daily', bars },
  meta: {
    as_of: new Date().toISOString(),
    route: 'getPriceHistory',
    window: { from: '2025-11-24', to: '2026-11-24' },
    next_cursor: '2025-11-23',
    has_more: true,
  },
});
