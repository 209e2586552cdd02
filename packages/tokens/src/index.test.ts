import { describe, expect, it } from 'vitest';
import {
  DEV_TAG_KEYS,
  generateToken,
  hasValidTag,
  isWellFormedLegacyToken,
  isWellFormedToken,
  LEGACY_TOKEN_LENGTH,
  parseTagKeys,
  TAGGED_TOKEN_LENGTH,
  TOKEN_PREFIX,
  tokenDisplayPrefix,
  tokenFingerprint,
  tokenFormat,
  tokenKeyId,
  usesDevTagKey,
} from './index.ts';

const KEY_A = 'a1:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const KEY_B = 'b2:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';

describe('tagged tokens', () => {
  const keyring = parseTagKeys(KEY_A);

  it('are made under the issuing key, distinct, and carry a tag only that key makes', () => {
    const tokens = new Set(Array.from({ length: 1000 }, () => generateToken(keyring)));
    expect(tokens.size).toBe(1000);
    for (const t of tokens) {
      expect(t.startsWith(`${TOKEN_PREFIX}a1`)).toBe(true);
      expect(t).toHaveLength(TAGGED_TOKEN_LENGTH);
      expect(tokenFormat(t)).toBe('tagged');
      expect(tokenKeyId(t)).toBe('a1');
      expect(isWellFormedToken(t)).toBe(true);
      expect(hasValidTag(t, keyring)).toBe(true);
    }
  });

  it('a tag is refused with any single character changed, under another key, or under an unknown id', () => {
    const token = generateToken(keyring);
    let refused = 0;
    for (let i = TOKEN_PREFIX.length; i < token.length; i++) {
      const swapped = token[i] === 'a' ? 'b' : 'a';
      if (!hasValidTag(token.slice(0, i) + swapped + token.slice(i + 1), keyring)) refused++;
    }
    expect(refused).toBe(token.length - TOKEN_PREFIX.length);
    // Same id, another key (a forger guessing the key): refused.
    expect(hasValidTag(token, parseTagKeys('a1:xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'))).toBe(false);
    expect(hasValidTag(token, parseTagKeys(KEY_B))).toBe(false);
    // A random string of the tagged shape is never valid.
    const made = `${TOKEN_PREFIX}a1${'x'.repeat(TAGGED_TOKEN_LENGTH - 6)}`;
    expect(isWellFormedToken(made)).toBe(true);
    expect(hasValidTag(made, keyring)).toBe(false);
  });

  it('rotation: both keys accepted during the overlap, the first issues, a retired key is refused', () => {
    const old = generateToken(parseTagKeys(KEY_A));
    const overlap = parseTagKeys(`${KEY_B},${KEY_A}`);
    const fresh = generateToken(overlap);
    expect(tokenKeyId(fresh)).toBe('b2');
    expect(hasValidTag(old, overlap)).toBe(true);
    expect(hasValidTag(fresh, overlap)).toBe(true);
    const retired = parseTagKeys(KEY_B);
    expect(hasValidTag(fresh, retired)).toBe(true);
    expect(hasValidTag(old, retired)).toBe(false);
  });

  it('reads TOKEN_TAG_KEYS and refuses bad ones without echoing a key', () => {
    expect(parseTagKeys(` ${KEY_A} , ${KEY_B} `).issuing).toBe('a1');
    for (const [spec, message] of [
      ['', /entry 1/],
      ['a1', /entry 1/],
      ['abc:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', /2-character id/],
      ['a1:short-key', /"a1" is shorter than 32/],
      [`${KEY_A},${KEY_A}`, /twice/],
    ] as const) {
      expect(() => parseTagKeys(spec)).toThrow(message);
      try {
        parseTagKeys(spec);
      } catch (err) {
        expect((err as Error).message).not.toContain('aaaaaaaa');
      }
    }
  });

  it('knows the development key, also when listed second', () => {
    expect(usesDevTagKey(parseTagKeys(DEV_TAG_KEYS))).toBe(true);
    expect(usesDevTagKey(parseTagKeys(`${KEY_A},${DEV_TAG_KEYS}`))).toBe(true);
    expect(usesDevTagKey(parseTagKeys(KEY_A))).toBe(false);
  });
});

describe('legacy tokens', () => {
  it('generates distinct, well-formed tokens with the prefix', () => {
    const tokens = new Set(Array.from({ length: 1000 }, generateToken));
    expect(tokens.size).toBe(1000);
    for (const t of tokens) {
      expect(t.startsWith(TOKEN_PREFIX)).toBe(true);
      expect(t).toHaveLength(LEGACY_TOKEN_LENGTH);
      expect(tokenFormat(t)).toBe('legacy');
      expect(isWellFormedToken(t)).toBe(true);
      expect(isWellFormedLegacyToken(t)).toBe(true);
      expect(hasValidTag(t, parseTagKeys(KEY_A))).toBe(false);
    }
  });

  it('refuses a token with any single character changed (checksum)', () => {
    const token = generateToken();
    let refused = 0;
    for (let i = TOKEN_PREFIX.length; i < token.length; i++) {
      const swapped = token[i] === 'a' ? 'b' : 'a';
      if (!isWellFormedToken(token.slice(0, i) + swapped + token.slice(i + 1))) refused++;
    }
    expect(refused).toBe(token.length - TOKEN_PREFIX.length);
  });

  it('refuses other shapes', () => {
    const token = generateToken();
    for (const bad of [
      '',
      'mdp_',
      token.slice(1),
      `${token}x`,
      token.replace('mdp_', 'xyz_'),
      token.replace(/.$/, '-'),
    ]) {
      expect(isWellFormedToken(bad), bad).toBe(false);
    }
  });

  it('labels and fingerprints do not reveal the token', () => {
    const token = generateToken();
    expect(tokenDisplayPrefix(token)).toBe(token.slice(0, 8));
    expect(tokenFingerprint(token)).not.toContain(token.slice(8, 20));
    expect(tokenFingerprint(token)).toBe(tokenFingerprint(token));
  });
});
