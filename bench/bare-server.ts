// The reference point for gateway throughput: a bare fastify JSON route with nothing in front of it,
// answering a document shaped and sized like a quote (envelope, meta, about twenty fields).
import Fastify from 'fastify';

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

const app = Fastify({ logger: false });
app.get('/bare', async () => ({
  data: quote,
  meta: { as_of: new Date().toISOString(), route: 'getQuote' },
}));
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
