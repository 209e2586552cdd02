import { ACCOUNT_BOUNDS } from '@mdp/tokens';
import { describe, expect, it } from 'vitest';
import {
  addressKey,
  checkEmail,
  checkNewPassword,
  checkTokenExpiry,
  checkTokenName,
  isSecretShaped,
  latestTokenExpiry,
  normaliseEmail,
  normalisePassword,
  retryAfterSeconds,
} from './account-rules.ts';

const NOW = Date.parse('2026-05-01T10:00:00Z');
const DAY = 86_400_000;

describe('e-mail addresses', () => {
  it('are trimmed, NFC-normalised and lower-cased', () => {
    expect(normaliseEmail('  Asha.Rao@Example.COM ')).toBe('asha.rao@example.com');
    expect(normaliseEmail('Ame\u0301lie@example.com')).toBe('amélie@example.com');
    expect(checkEmail('Asha@Example.com')).toEqual({ ok: true, value: 'asha@example.com' });
  });

  it.each([
    'asha+api@mail.example.in',
    'a@b.co',
    "o'neil@example.org",
    'rahul@xn--h2brj9c.com',
    'राहुल@उदाहरण.भारत',
  ])('accepts %s', (email) => {
    expect(checkEmail(email).ok).toBe(true);
  });

  it.each([
    'plainaddress',
    '@example.com',
    'asha@',
    'asha@example',
    'asha@@example.com',
    'asha rao@example.com',
    'asha@exa mple.com',
    'asha@-example.com',
    'asha@example-.com',
    'asha@example..com',
    '.asha@example.com',
    'asha.@example.com',
    'as..ha@example.com',
    'asha@example.c0m',
    '<asha@example.com>',
    `${'a'.repeat(65)}@example.com`,
  ])('refuses %s with a sentence', (email) => {
    const res = checkEmail(email);
    expect(res).toEqual({ ok: false, message: 'Enter an e-mail address such as name@example.com.' });
  });

  it('asks for one when empty, and bounds the length (in characters) to 254', () => {
    expect(checkEmail('   ')).toEqual({ ok: false, message: 'Enter your e-mail address.' });
    const at254 = `${'a'.repeat(60)}@${'b'.repeat(60)}.${'c'.repeat(60)}.${'d'.repeat(60)}.${'e'.repeat(10)}`;
    expect([...at254].length).toBe(254);
    expect(checkEmail(at254).ok).toBe(true);
    expect(checkEmail(`x${at254}`)).toEqual({
      ok: false,
      message: `An e-mail address has at most ${ACCOUNT_BOUNDS.emailMaxLength} characters.`,
    });
  });
});

describe('passwords', () => {
  it('are 12 to 256 characters, counted as characters, not UTF-16 units', () => {
    expect(checkNewPassword('a'.repeat(11)).ok).toBe(false);
    expect(checkNewPassword('a'.repeat(12)).ok).toBe(true);
    expect(checkNewPassword('a'.repeat(256)).ok).toBe(true);
    expect(checkNewPassword('a'.repeat(257))).toEqual({
      ok: false,
      message: 'A password has at most 256 characters.',
    });
    // 12 emoji are 24 UTF-16 units but 12 characters.
    expect(checkNewPassword('🔑'.repeat(12)).ok).toBe(true);
    expect(checkNewPassword('🔑'.repeat(11)).ok).toBe(false);
    expect(checkNewPassword('')).toEqual({ ok: false, message: 'Choose a password.' });
    expect(checkNewPassword('short')).toMatchObject({
      ok: false,
      message: expect.stringMatching(/at least 12/),
    });
  });

  it('are never trimmed, and are compared in NFKC', () => {
    expect(checkNewPassword('  spaces count  ')).toEqual({ ok: true, value: '  spaces count  ' });
    expect(normalisePassword('ﬁle cabinet 42')).toBe('file cabinet 42');
    expect(normalisePassword('Ame\u0301lie')).toBe(normalisePassword('Amélie'));
  });
});

describe('token names', () => {
  it('are required, trimmed, at most 200 characters, without control characters', () => {
    expect(checkTokenName('  laptop ')).toEqual({ ok: true, value: 'laptop' });
    expect(checkTokenName('   ').ok).toBe(false);
    expect(checkTokenName('n'.repeat(200)).ok).toBe(true);
    expect(checkTokenName('n'.repeat(201))).toEqual({
      ok: false,
      message: 'A token name has at most 200 characters.',
    });
    expect(checkTokenName('bad\u0000name').ok).toBe(false);
    expect(checkTokenName('bad\nname').ok).toBe(false);
  });
});

describe('token expiry', () => {
  it('is optional', () => {
    expect(checkTokenExpiry(undefined, NOW)).toEqual({ ok: true, value: undefined });
  });

  it('must be in the future', () => {
    expect(checkTokenExpiry(NOW, NOW)).toEqual({ ok: false, message: 'The expiry must be in the future.' });
    expect(checkTokenExpiry(NOW - 1, NOW).ok).toBe(false);
    expect(checkTokenExpiry(NOW + 1, NOW)).toEqual({ ok: true, value: new Date(NOW + 1) });
  });

  it('is at most the end of the IST day 730 days from now', () => {
    // 10:00Z is 15:30 IST; that day ends at 18:30Z.
    const limit = latestTokenExpiry(NOW);
    expect(new Date(limit).toISOString()).toBe('2028-04-30T18:30:00.000Z');
    expect(limit).toBeGreaterThan(NOW + 730 * DAY);
    expect(checkTokenExpiry(limit, NOW).ok).toBe(true);
    expect(checkTokenExpiry(limit + 1, NOW)).toEqual({
      ok: false,
      message: 'A token expires at most 730 days from today.',
    });
    expect(checkTokenExpiry(NOW + 3 * 365 * DAY, NOW).ok).toBe(false);
  });

  it('refuses what is not a whole number of milliseconds', () => {
    expect(checkTokenExpiry(Number.NaN, NOW).ok).toBe(false);
    expect(checkTokenExpiry(NOW + 0.5, NOW).ok).toBe(false);
  });
});

describe('rate limit windows', () => {
  it('say how many whole seconds remain, at least one', () => {
    const windowMs = 15 * 60_000;
    expect(retryAfterSeconds(NOW, windowMs, NOW)).toBe(900);
    expect(retryAfterSeconds(NOW, windowMs, NOW + 1)).toBe(900);
    expect(retryAfterSeconds(NOW, windowMs, NOW + 1_000)).toBe(899);
    expect(retryAfterSeconds(NOW, windowMs, NOW + windowMs - 1)).toBe(1);
    expect(retryAfterSeconds(NOW, windowMs, NOW + windowMs + 5_000)).toBe(1);
  });
});

describe('client address keys', () => {
  it('keep IPv4 addresses, and unwrap IPv4-mapped IPv6', () => {
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey(' 203.0.113.7 ')).toBe('203.0.113.7');
  });

  it('limit an IPv6 client by its /64, however it is written', () => {
    const key = '2001:db8:aa:1::/64';
    expect(addressKey('2001:db8:aa:1::1')).toBe(key);
    expect(addressKey('2001:0DB8:00AA:0001:ffff:1:2:3')).toBe(key);
    expect(addressKey('2001:db8:aa:1:0:0:0:9%eth0')).toBe(key);
    expect(addressKey('2001:db8:aa:2::1')).not.toBe(key);
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('64:ff9b::192.0.2.33')).toBe('64:ff9b:0:0::/64');
  });

  it('bound anything else', () => {
    expect(addressKey('')).toBe('');
    expect(addressKey('x'.repeat(500))).toHaveLength(100);
  });
});

describe('handed-out secrets', () => {
  it('are 43 base64url characters (32 bytes)', () => {
    expect(isSecretShaped('A'.repeat(43))).toBe(true);
    expect(isSecretShaped(`${'-_'.repeat(21)}a`)).toBe(true);
    expect(isSecretShaped('A'.repeat(42))).toBe(false);
    expect(isSecretShaped(`${'A'.repeat(42)}=`)).toBe(false);
    expect(isSecretShaped(`${'A'.repeat(42)}+`)).toBe(false);
  });
});
