/**
 * How long the gateway's caches read one clock for their entries' ages (lru-cache's `ttlResolution`).
 * The default, 1 ms, sets a timer every millisecond a cache is read: at thousands of requests a second,
 * a timer for every few requests of each cache. Their TTLs bound staleness (a second at least; 30 s and
 * 5 minutes by default; a token's own expiry is checked on every use, apart from this): a tenth of a
 * second more is within what they allow.
 */
export const TTL_RESOLUTION_MS = 100;
