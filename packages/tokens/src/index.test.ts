import { describe, expect, it } from 'vitest';
import {
  generateToken,
  isWellFormedToken,
  TOKEN_PREFIX,
  tokenDisplayPrefix,
  tokenFingerprint,
} from './index.ts';

describe('tokens', () => {
  it('generates distinct, well-formed tokens with the prefix', () => {
    const tokens = new Set(Array.from({ length: 1000 }, generateToken));
    expect(tokens.size).toBe(1000);
    for (const t of tokens) {
      expect(t.startsWith(TOKEN_PREFIX)).toBe(true);
      expect(t).toHaveLength(TOKEN_PREFIX.length + 38);
      expect(isWellFormedToken(t)).toBe(true);
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
