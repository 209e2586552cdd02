import { createHmac, createSecretKey, hash, type KeyObject, randomBytes, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * API token formats. Both start `mdp_` (secret scanners recognise leaked tokens by it) and carry 32
 * base62 characters of randomness (~190 bits).
 *
 * - Tagged (issued now): `mdp_` + a 2-character key id + the 32 random characters + a 16-character tag,
 *   an HMAC-SHA256 under the server's tag key with that id. Nobody without the key can make a token the
 *   gateway would look up, so a flood of made-up tokens costs one HMAC each and no lookup. The key id
 *   lets keys rotate: the gateway accepts every key it holds, auth issues under the first.
 * - Legacy (issued before tags): `mdp_` + the 32 random characters + a 6-character CRC32. The checksum
 *   is public, so anyone can make one of the right shape; they are accepted until their owners rotate
 *   them, on a bounded and throttled path (the gateway's authenticator).
 */
export const TOKEN_PREFIX = 'mdp_';
const BODY_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
const KEY_ID_LENGTH = 2;
/** 16 characters of `byte % 62`: the likeliest character has probability 5/256, so ~91 bits to guess. */
const TAG_LENGTH = 16;
/** Every well-formed legacy (CRC32) token has this many characters. */
export const LEGACY_TOKEN_LENGTH = TOKEN_PREFIX.length + BODY_LENGTH + CHECKSUM_LENGTH;
/** Every well-formed tagged token has this many characters. */
export const TAGGED_TOKEN_LENGTH = TOKEN_PREFIX.length + KEY_ID_LENGTH + BODY_LENGTH + TAG_LENGTH;
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const LEGACY_SHAPE = new RegExp(`^${TOKEN_PREFIX}[0-9A-Za-z]{${BODY_LENGTH + CHECKSUM_LENGTH}}$`);
const TAGGED_SHAPE = new RegExp(`^${TOKEN_PREFIX}[0-9A-Za-z]{${KEY_ID_LENGTH + BODY_LENGTH + TAG_LENGTH}}$`);
const KEY_ID = new RegExp(`^[0-9A-Za-z]{${KEY_ID_LENGTH}}$`);
/** Shortest tag key accepted: 32 characters (the chart generates 48). */
export const TAG_KEY_MIN_LENGTH = 32;
/**
 * `TOKEN_TAG_KEYS`'s shape, for the services' configuration schemas: a malformed list stops a process
 * at start-up (exit 78) naming the variable, never echoing a key. `parseTagKeys` checks the rest.
 */
export const TAG_KEYS_PATTERN = `^[0-9A-Za-z]{2}:[^,\\s]{${TAG_KEY_MIN_LENGTH},}(,[0-9A-Za-z]{2}:[^,\\s]{${TAG_KEY_MIN_LENGTH},})*$`;

/**
 * The key set of `TOKEN_TAG_KEYS` for `make run` and tests only. Production sets its own: the chart's
 * Secret always carries a generated one, and `parseTagKeys` is told whether this one may be used.
 */
export const DEV_TAG_KEYS = 'dv:dev-only-token-tag-key-never-use-in-production';

/** The tag keys a process holds: new tokens are tagged with `issuing`; every key in `byId` is accepted. */
export interface TagKeyring {
  issuing: string;
  /** Key objects, not buffers: an HMAC under a KeyObject costs 2 µs, under a Buffer 12 (Node 24). */
  byId: ReadonlyMap<string, KeyObject>;
}

/**
 * Reads `TOKEN_TAG_KEYS`: `<id>:<key>[,<id>:<key>…]`, ids of 2 characters of [0-9A-Za-z], keys of at
 * least 32 characters without commas. The first key issues new tokens. Throws naming the problem,
 * never a key.
 */
export function parseTagKeys(spec: string): TagKeyring {
  const byId = new Map<string, KeyObject>();
  let issuing: string | undefined;
  for (const [i, entry] of spec.split(',').entries()) {
    const colon = entry.indexOf(':');
    const id = colon < 0 ? '' : entry.slice(0, colon).trim();
    const key = colon < 0 ? '' : entry.slice(colon + 1).trim();
    if (!KEY_ID.test(id))
      throw new Error(
        `TOKEN_TAG_KEYS entry ${i + 1}: expected <id>:<key> with a 2-character id of 0-9A-Za-z`,
      );
    if (key.length < TAG_KEY_MIN_LENGTH)
      throw new Error(`TOKEN_TAG_KEYS key "${id}" is shorter than ${TAG_KEY_MIN_LENGTH} characters`);
    if (byId.has(id)) throw new Error(`TOKEN_TAG_KEYS names key "${id}" twice`);
    byId.set(id, createSecretKey(Buffer.from(key, 'utf8')));
    issuing ??= id;
  }
  if (!issuing) throw new Error('TOKEN_TAG_KEYS holds no key');
  return { issuing, byId };
}

/** Whether a key set is (or includes) the development key, which must never tag a production token. */
export function usesDevTagKey(keyring: TagKeyring): boolean {
  const dev = parseTagKeys(DEV_TAG_KEYS);
  return [...dev.byId].some(([id, key]) => keyring.byId.get(id)?.equals(key) === true);
}

function base62(value: number, width: number): string {
  let out = '';
  let n = value;
  for (let i = 0; i < width; i++) {
    out = ALPHABET[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

function checksum(body: string): string {
  return base62(crc32(body), CHECKSUM_LENGTH);
}

function tag(key: KeyObject, signed: string): string {
  const digest = createHmac('sha256', key).update(signed).digest();
  let out = '';
  for (let i = 0; i < TAG_LENGTH; i++) out += ALPHABET[digest[i]! % 62];
  return out;
}

function randomBody(): string {
  // Rejection sampling keeps every character uniform over the 62-letter alphabet.
  let body = '';
  while (body.length < BODY_LENGTH) {
    for (const byte of randomBytes(BODY_LENGTH)) {
      if (byte < 248 && body.length < BODY_LENGTH) body += ALPHABET[byte % 62];
    }
  }
  return body;
}

/**
 * A new random token, shown to its owner once and never stored: tagged under the keyring's issuing key.
 * Without a keyring, the legacy CRC32 format, which only tests of the migration path should make.
 */
export function generateToken(keyring?: TagKeyring): string {
  const body = randomBody();
  if (!keyring) return `${TOKEN_PREFIX}${body}${checksum(body)}`;
  const signed = `${TOKEN_PREFIX}${keyring.issuing}${body}`;
  return `${signed}${tag(keyring.byId.get(keyring.issuing)!, signed)}`;
}

/** Which format a string of a token's length claims to be, by length alone (no check of its content). */
export function tokenFormat(token: string): 'tagged' | 'legacy' | undefined {
  if (token.length === TAGGED_TOKEN_LENGTH) return 'tagged';
  if (token.length === LEGACY_TOKEN_LENGTH) return 'legacy';
  return undefined;
}

/** The key id a tagged token names (whether or not its tag is right); undefined for any other string. */
export function tokenKeyId(token: string): string | undefined {
  return TAGGED_SHAPE.test(token)
    ? token.slice(TOKEN_PREFIX.length, TOKEN_PREFIX.length + KEY_ID_LENGTH)
    : undefined;
}

/**
 * Whether a tagged token's tag is right under a key the keyring holds: true only for tokens made with
 * the key, so only those are worth a lookup. A key id the keyring lacks (retired, or made up) is false.
 */
export function hasValidTag(token: string, keyring: TagKeyring): boolean {
  const id = tokenKeyId(token);
  const key = id === undefined ? undefined : keyring.byId.get(id);
  if (!key) return false;
  const split = TAGGED_TOKEN_LENGTH - TAG_LENGTH;
  return timingSafeEqual(Buffer.from(token.slice(split)), Buffer.from(tag(key, token.slice(0, split))));
}

/** Whether the string has a legacy token's shape and a correct CRC32. Says nothing about validity. */
export function isWellFormedLegacyToken(token: string): boolean {
  if (!LEGACY_SHAPE.test(token)) return false;
  const body = token.slice(TOKEN_PREFIX.length, TOKEN_PREFIX.length + BODY_LENGTH);
  const given = Buffer.from(token.slice(TOKEN_PREFIX.length + BODY_LENGTH));
  return timingSafeEqual(given, Buffer.from(checksum(body)));
}

/**
 * Whether the string has the shape of a token of either format (and a legacy one its checksum). Says
 * nothing about validity, nor about a tag, which only a holder of the key can check (`hasValidTag`).
 */
export function isWellFormedToken(token: string): boolean {
  return TAGGED_SHAPE.test(token) || isWellFormedLegacyToken(token);
}

/** A short, non-secret label for listings: the prefix and the first four characters. */
export function tokenDisplayPrefix(token: string): string {
  return token.slice(0, TOKEN_PREFIX.length + 4);
}

/** An in-memory key for a token (caches hold this, never the token). */
export function tokenFingerprint(token: string): string {
  // One-shot: no Hash object per call (4.4 µs a token with createHash, 1.7 with hash; once per request).
  return hash('sha256', token, 'base64url');
}
export { ACCOUNT_BOUNDS } from './account-bounds.ts';
export { MAX_TOKEN_USES_PER_CALL } from './token-use.ts';
