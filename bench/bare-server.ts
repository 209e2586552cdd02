// The reference point for gateway throughput: a bare fastify JSON route with nothing in front of it,
// answering a document shaped and sized like a quote (envelope, meta, about twenty fields), and one
// answering a year of daily bars, sized like the 365-day price page.
import Fastify from 'fastify';
import { pageDocument, quoteDocument } from './documents.ts';

const app = Fastify({ logger: false });
app.get('/bare-page', async () => pageDocument());
app.get('/bare', async () => quoteDocument());
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
