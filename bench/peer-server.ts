// The peer the metered quote is compared with: what a team would build for "a rate limit per API key"
// without the platform's ledger. fastify with @fastify/rate-limit on a Redis store (ioredis), keyed by
// the bearer token of the Authorization header, answering the same quote-shaped document as the bare
// route. Its max is far above anything a bench run sends, so it refuses nothing; every request still
// pays the store's round trip (one Lua script: INCR, PTTL or PEXPIRE on the token's key) and the
// x-ratelimit-* headers. No token check, no usage record: the peer prices a rate limit only.
// PORT and REDIS_PORT come from the bench (bench/run.ts), which starts Redis (bench/redis.ts).
import rateLimit from '@fastify/rate-limit';
import Fastify, { type FastifyRequest } from 'fastify';
import { Redis } from 'ioredis';
import { quoteDocument } from './documents.ts';

/** A minute's allowance no run comes near (a run sends tens of thousands of requests over every key). */
const PEER_MAX = 1_000_000_000;

/** The token of `Authorization: Bearer <token>`, as a user keys a limit per API key; the address without one. */
function tokenKey(request: FastifyRequest): string {
  const header = request.headers.authorization;
  return header?.startsWith('Bearer ') ? header.slice(7) : request.ip;
}

const redis = new Redis({
  host: '127.0.0.1',
  port: Number(process.env.REDIS_PORT),
  // The plugin's README advises these over ioredis's defaults for a rate limiter.
  connectTimeout: 500,
  maxRetriesPerRequest: 1,
});
const app = Fastify({ logger: false });
await app.register(rateLimit, {
  max: PEER_MAX,
  timeWindow: 60_000,
  redis,
  nameSpace: 'bench-peer-',
  keyGenerator: tokenKey,
});
app.get('/peer', async () => quoteDocument());
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) });
process.on('SIGTERM', () => {
  void app
    .close()
    .then(() => redis.quit())
    .finally(() => process.exit(0));
});
