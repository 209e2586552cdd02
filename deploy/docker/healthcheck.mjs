// The image's HEALTHCHECK: exit 0 when the service's ops port answers /healthz (liveness) with 200.
// Plain JavaScript with no imports: it runs in the runtime image as it is.
const DEFAULT_OPS_PORTS = {
  gateway: 9100,
  auth: 9101,
  'quota-ledger': 9102,
  'equities-data': 9103,
  'filings-reader': 9104,
  'options-analytics': 9105,
};
const port = Number(process.env.OPS_PORT || DEFAULT_OPS_PORTS[process.env.MDP_SERVICE ?? ''] || Number.NaN);
if (!Number.isInteger(port)) {
  console.error('healthcheck: set OPS_PORT (or MDP_SERVICE to a known service)');
  process.exit(1);
}
try {
  const res = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(2_000) });
  process.exit(res.status === 200 ? 0 : 1);
} catch (err) {
  console.error(`healthcheck: ${err.cause?.code ?? err.name} on :${port}`);
  process.exit(1);
}
