// Tokens nobody issued, for the authentication-flood script and its Node test (plain ES module, no k6
// or Node API). They follow packages/tokens' two formats, so each reaches the gateway step it targets.

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const PREFIX = 'mdp_';

const CRC_TABLE = (() => {
  const table = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c;
  }
  return table;
})();

/** CRC-32 (IEEE) of an ASCII string, as zlib computes it. */
export function crc32(text) {
  let c = -1;
  for (let i = 0; i < text.length; i++) c = CRC_TABLE[(c ^ text.charCodeAt(i)) & 0xff] ^ (c >>> 8);
  return (c ^ -1) >>> 0;
}

function base62(value, width) {
  let out = '';
  let n = value;
  for (let i = 0; i < width; i++) {
    out = ALPHABET[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

function random(length) {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[Math.floor(Math.random() * 62)];
  return out;
}

/**
 * The attack of issue 41: the legacy format with a correct public CRC32, a new one each time. While
 * legacy tokens are accepted the gateway would look these up; its per-address throttle is what stops
 * them.
 */
export function forgedLegacyToken() {
  const body = random(32);
  return `${PREFIX}${body}${base62(crc32(body), 6)}`;
}

/** The tagged format under key id `keyId`, with a tag made without the key: refused before any lookup. */
export function forgedTaggedToken(keyId = 'dv') {
  return `${PREFIX}${keyId}${random(32)}${random(16)}`;
}

/** The legacy shape with a wrong checksum: what the gateway always refused cheaply (the baseline). */
export function wrongChecksumToken() {
  const body = random(32);
  const right = base62(crc32(body), 6);
  const wrong = random(6);
  return `${PREFIX}${body}${wrong === right ? `${wrong.slice(0, 5)}${wrong[5] === 'a' ? 'b' : 'a'}` : wrong}`;
}

/** A forged token of `kind` (tagged, legacy, checksum, or mixed: tagged and legacy by turns). */
export function floodToken(kind, i = 0) {
  if (kind === 'tagged') return forgedTaggedToken();
  if (kind === 'legacy') return forgedLegacyToken();
  if (kind === 'checksum') return wrongChecksumToken();
  if (kind === 'mixed') return i % 2 === 0 ? forgedTaggedToken() : forgedLegacyToken();
  throw new Error(`FORGED must be tagged, legacy, checksum or mixed, not "${kind}"`);
}

/**
 * What a flood's answers may be: the unknown token's 401 invalid_token, the throttle's 429 rate_limited
 * (with Retry-After), or, only for legacy lookups past their bound, 503 service_unavailable.
 */
export function floodAnswerIsExpected(status, code, hasRetryAfter) {
  if (status === 401) return code === 'invalid_token';
  if (status === 429) return code === 'rate_limited' && hasRetryAfter;
  if (status === 503) return code === 'service_unavailable' && hasRetryAfter;
  return false;
}
