// The gateway's own HTTP path as a process of its own, for test/bench/gateway-path.ts: `buildGateway` as
// server.ts builds it (the process-wide tracer provider without an exporter, as `bootstrap` registers it;
// the real authenticator, token-use reporter and document cache), with in-process stand-ins for what
// lies beyond the process: the auth service verifies every token, the ledger answers `/v1/me/usage`
// with a constant document, and no data service is reached. The bench asks only routes that are not
// metered: metering is asked only what a usage read asks of it (its usage can be read; no lease's
// charges), and anything else would answer 500 and fail the run. So what it measures is the HTTP path
// itself: hooks, token check (cached), validation, envelope, and the answer's write.
import { systemClock } from '@mdp/nse-calendar';
import { auth } from '@mdp/proto';
import { createLogger, createRegistry, initTracing } from '@mdp/telemetry';
import { buildGateway } from '../../services/gateway/src/app.ts';
import { Authenticator } from '../../services/gateway/src/authenticator.ts';
import type { Upstreams } from '../../services/gateway/src/catalogue/index.ts';
import { DocumentCache } from '../../services/gateway/src/document-cache.ts';
import type { Metering } from '../../services/gateway/src/metering/metering.ts';
import { TokenUseReporter } from '../../services/gateway/src/token-use.ts';

const logger = createLogger('gateway', process.env.LOG_LEVEL ?? 'warn');
const tracing = initTracing({ serviceName: 'gateway' });
const registry = createRegistry('gateway');

/** A usage document as the ledger sends it (about 0.5 KB enveloped, beside bare's quote-shaped 0.6 KB). */
const usage = {
  plan: 'load-test',
  day: {
    period: '2026-11-28',
    used: 18_234,
    limit: null,
    remaining: null,
    resets_at: '2026-11-28T18:30:00.000Z',
    by_interface: { rest: 18_200, mcp: 34 },
  },
  month: {
    period: '2026-11',
    used: 402_118,
    limit: null,
    remaining: null,
    resets_at: '2026-11-30T18:30:00.000Z',
    by_interface: { rest: 401_900, mcp: 218 },
  },
};
const usageDocument = { data_json: Buffer.from(JSON.stringify(usage)), meta_json: Buffer.alloc(0) };

const principal: auth.Principal = {
  token_id: 'bench-token',
  account_id: 'bench-account',
  plan: 'load-test',
  daily_cap: undefined,
  monthly_cap: undefined,
  expires_at_ms: undefined,
  burst_per_minute: undefined,
};
const authClient = {
  verifyToken: async () => ({ outcome: auth.VerifyOutcome.VERIFY_OUTCOME_VALID, principal }),
  recordTokenUse: async () => ({}),
} as never;

/** `served`'s members, and for any other a function that rejects. */
const standIn = (what: string, served: Record<string, unknown> = {}) =>
  new Proxy(served, {
    get: (t, name) =>
      typeof name === 'string' && name in t
        ? t[name]
        : () => Promise.reject(new Error(`bench: ${what}.${String(name)} is not served here`)),
  });
const ledger = { getUsage: async () => usageDocument };
const upstreams = {
  equities: standIn('equities'),
  filings: standIn('filings'),
  options: standIn('options'),
  ledger: () => ledger,
} as unknown as Upstreams;

const tokenUse = new TokenUseReporter(authClient, logger, 5_000);
const authenticator = new Authenticator({
  onUse: (tokenId, atMs) => tokenUse.seen(tokenId, atMs),
  client: authClient,
  clock: systemClock,
  registry,
  deadlineMs: 300,
  cacheMax: 100_000,
  cacheTtlMs: 300_000,
});

const app = await buildGateway({
  logger,
  tracer: tracing.tracer,
  registry,
  upstreams,
  authenticator,
  authClient,
  siteCsrfKey: 'bench-site-csrf-key-of-32-characters!',
  metering: standIn('metering', {
    readable: async () => true,
    leaseCharges: () => undefined,
  }) as unknown as Metering,
  documents: new DocumentCache({ maxBytes: 64 * 1024 * 1024, ttlMs: 30_000, registry }),
  clock: systemClock,
});
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) });
process.on(
  'SIGTERM',
  () =>
    void app
      .close()
      .then(() => tokenUse.close())
      .then(() => process.exit(0)),
);
