import { crc32 as zlibCrc32 } from 'node:zlib';
import {
  DEV_TAG_KEYS,
  hasValidTag,
  isWellFormedLegacyToken,
  isWellFormedToken,
  parseTagKeys,
  TAGGED_TOKEN_LENGTH,
} from '@mdp/tokens';
import { describe, expect, it } from 'vitest';
import {
  crc32,
  floodAnswerIsExpected,
  floodToken,
  forgedLegacyToken,
  forgedTaggedToken,
  wrongChecksumToken,
} from '../../load-tests/lib/flood.js';

describe("the flood script's forged tokens reach the gateway step they aim at", () => {
  const keys = parseTagKeys(DEV_TAG_KEYS);

  it("its CRC-32 is zlib's", () => {
    for (const text of ['', 'a', 'mdp', 'x'.repeat(32), '0123456789ABCDEFGHIJKLMNOPQRSTUV'])
      expect(crc32(text)).toBe(zlibCrc32(text));
  });

  it('legacy forgeries pass the public checksum (the attack), tagged ones fail the tag, the baseline fails the checksum', () => {
    for (let i = 0; i < 200; i++) {
      const legacy = forgedLegacyToken();
      expect(isWellFormedLegacyToken(legacy)).toBe(true);
      const tagged = forgedTaggedToken();
      expect(tagged).toHaveLength(TAGGED_TOKEN_LENGTH);
      expect(isWellFormedToken(tagged)).toBe(true);
      expect(hasValidTag(tagged, keys)).toBe(false);
      const bad = wrongChecksumToken();
      expect(isWellFormedToken(bad)).toBe(false);
      expect(bad).toHaveLength(legacy.length);
    }
    expect(isWellFormedLegacyToken(floodToken('mixed', 1))).toBe(true);
    expect(hasValidTag(floodToken('mixed', 0), keys)).toBe(false);
    expect(() => floodToken('nope' as never)).toThrow(/FORGED/);
  });

  it('a flood may only be answered 401 invalid_token, 429 rate_limited or 503, the last two with Retry-After', () => {
    expect(floodAnswerIsExpected(401, 'invalid_token', false)).toBe(true);
    expect(floodAnswerIsExpected(429, 'rate_limited', true)).toBe(true);
    expect(floodAnswerIsExpected(429, 'rate_limited', false)).toBe(false);
    expect(floodAnswerIsExpected(503, 'service_unavailable', true)).toBe(true);
    expect(floodAnswerIsExpected(200, undefined, false)).toBe(false);
    expect(floodAnswerIsExpected(401, 'authentication_required', false)).toBe(false);
    expect(floodAnswerIsExpected(500, 'internal_error', false)).toBe(false);
  });
});
