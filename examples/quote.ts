// A subscriber's first program: a quote, a few quotes in one unit, and what is left of the day's quota.
//   MDP_TOKEN=mdp_... npx tsx examples/quote.ts [symbol]
import { MdpClient, MdpError, quotes, quoteUnits } from '@mdp/client';

const client = new MdpClient({
  token: process.env.MDP_TOKEN ?? '',
  baseUrl: process.env.MDP_BASE_URL ?? 'http://localhost:8080',
  pace: true, // stay under the burst cap instead of collecting 429s
});

const symbol = process.argv[2] ?? 'ARAVALIHOU'; // the default generated data's largest company
try {
  const { data } = await client.getStockQuote({ symbol });
  console.log(`${data.symbol} ${data.name}: ₹${data.ltp} (${data.change_pct}%)`);
  const symbols = ['ARAVALIHOU', 'ANUPAMIRO', 'EVERESTDYE', 'CHAMBALPOW'];
  const batch = await quotes(client, symbols);
  console.log(`${batch.items.length} quotes for ${quoteUnits(symbols)} unit(s)`);
  console.log(`left today: ${client.rateLimit?.remaining ?? 'unlimited'}`);
} catch (err) {
  if (err instanceof MdpError && err.code === 'quota_exhausted')
    console.error(`quota used up until ${err.resetsAt}`);
  else throw err;
}
