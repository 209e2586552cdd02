// Every daily bar of a stock, page by page (each page one unit), written as CSV.
//   MDP_TOKEN=mdp_... npx tsx examples/price-history.ts [symbol] [days per page]
import { MdpClient, pricePages } from '@mdp/client';

const client = new MdpClient({ token: process.env.MDP_TOKEN ?? '', baseUrl: process.env.MDP_BASE_URL });
const symbol = process.argv[2] ?? 'ARAVALIHOU';
const days = Number(process.argv[3] ?? 2000);

const pages = [];
for await (const page of pricePages(client, { symbol, days })) pages.unshift(page.data);
console.log('date,open,high,low,close,volume');
for (const bar of pages.flat())
  console.log(`${bar.date},${bar.open},${bar.high},${bar.low},${bar.close},${bar.volume}`);
