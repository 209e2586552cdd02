import { isIPv4, isIPv6 } from 'node:net';
import { DAY_MS, istNextDayStart } from '@mdp/nse-calendar';
import { ACCOUNT_BOUNDS as B } from '@mdp/tokens';

/**
 * The rules of the account web site, pure: what a subscriber may type, how long sessions and invites
 * live, and the rate limits. The bounds are the ones the site's forms state (`ACCOUNT_BOUNDS`).
 */

export const SESSION_LIFETIME_MS = 30 * DAY_MS;
export const INVITE_LIFETIME_MS = 7 * DAY_MS;

type RateScope = 'sign_in_address' | 'sign_in_email' | 'sign_up_address';
export interface RateLimit {
  scope: RateScope;
  max: number;
  windowMs: number;
}

export const RATE_LIMITS = {
  /** Failed sign-ins of one e-mail address, whether or not it has an account. */
  signInEmail: { scope: 'sign_in_email', max: 5, windowMs: 15 * 60_000 },
  /** Failed sign-ins (and invalid invite codes) from one client address. */
  signInAddress: { scope: 'sign_in_address', max: 20, windowMs: 15 * 60_000 },
  /** Sign-up attempts from one client address. */
  signUpAddress: { scope: 'sign_up_address', max: 10, windowMs: 60 * 60_000 },
} as const satisfies Record<string, RateLimit>;

/** Whole seconds until a window that opened at `windowStartMs` closes; at least 1. */
export function retryAfterSeconds(windowStartMs: number, windowMs: number, nowMs: number): number {
  return Math.max(1, Math.ceil((windowStartMs + windowMs - nowMs) / 1000));
}

export type Checked<T> = { ok: true; value: T } | { ok: false; message: string };

/** Characters, as Postgres counts them (code points, not UTF-16 units). */
const chars = (s: string) => [...s].length;

// A practical address: no spaces or angle brackets, a local part of at most 64 characters, and a domain of
// at least two dot-separated labels of letters (with their marks), digits and inner hyphens, the last of letters only.
const LOCAL = /^[^\s@"(),:;<>[\]\\]{1,64}$/u;
const LABEL = /^[\p{L}\p{N}](?:[\p{L}\p{M}\p{N}-]{0,61}[\p{L}\p{M}\p{N}])?$/u;
const TLD = /^\p{L}[\p{L}\p{M}]{1,62}$/u;

/** An e-mail address as stored and compared: trimmed, NFC, lower case. */
export function normaliseEmail(raw: string): string {
  return raw.trim().normalize('NFC').toLowerCase();
}

export function checkEmail(raw: string): Checked<string> {
  const email = normaliseEmail(raw);
  if (email === '') return { ok: false, message: 'Enter your e-mail address.' };
  if (chars(email) > B.emailMaxLength)
    return { ok: false, message: `An e-mail address has at most ${B.emailMaxLength} characters.` };
  const at = email.lastIndexOf('@');
  const local = email.slice(0, at);
  const labels = email.slice(at + 1).split('.');
  const shaped =
    at > 0 &&
    LOCAL.test(local) &&
    !local.startsWith('.') &&
    !local.endsWith('.') &&
    !local.includes('..') &&
    labels.length >= 2 &&
    labels.every((l) => LABEL.test(l)) &&
    TLD.test(labels.at(-1)!);
  if (!shaped) return { ok: false, message: 'Enter an e-mail address such as name@example.com.' };
  return { ok: true, value: email };
}

/**
 * A password as hashed and verified: NFKC-normalised (NIST SP 800-63B 5.1.1.2), so that the same
 * characters typed on another keyboard or system match. Never trimmed.
 */
export function normalisePassword(raw: string): string {
  return raw.normalize('NFKC');
}

/** A new password (sign-up, invite, set-password). */
export function checkNewPassword(raw: string): Checked<string> {
  const password = normalisePassword(raw);
  const n = chars(password);
  if (n === 0) return { ok: false, message: 'Choose a password.' };
  if (n < B.passwordMinLength)
    return {
      ok: false,
      message: `A password has at least ${B.passwordMinLength} characters; a passphrase of a few words is fine.`,
    };
  if (n > B.passwordMaxLength)
    return { ok: false, message: `A password has at most ${B.passwordMaxLength} characters.` };
  return { ok: true, value: password };
}

const CONTROL = /\p{Cc}/u;

export function checkTokenName(raw: string): Checked<string> {
  const name = raw.trim();
  if (name === '') return { ok: false, message: 'Give the token a name, e.g. "laptop" or "trading bot".' };
  if (chars(name) > B.tokenNameMaxLength)
    return { ok: false, message: `A token name has at most ${B.tokenNameMaxLength} characters.` };
  if (CONTROL.test(name)) return { ok: false, message: 'A token name cannot contain control characters.' };
  return { ok: true, value: name };
}

/**
 * The furthest a token's expiry may be: the end of the IST day `tokenExpiryMaxDays` from now, so that the
 * site's "expires at the end of this day" is accepted for the last day it offers.
 */
export function latestTokenExpiry(nowMs: number): number {
  return istNextDayStart(nowMs + B.tokenExpiryMaxDays * DAY_MS);
}

/** An optional expiry in Unix milliseconds: absent means none; otherwise after now and not too far. */
export function checkTokenExpiry(expiresAtMs: number | undefined, nowMs: number): Checked<Date | undefined> {
  if (expiresAtMs === undefined) return { ok: true, value: undefined };
  if (!Number.isSafeInteger(expiresAtMs) || expiresAtMs <= nowMs)
    return { ok: false, message: 'The expiry must be in the future.' };
  if (expiresAtMs > latestTokenExpiry(nowMs))
    return { ok: false, message: `A token expires at most ${B.tokenExpiryMaxDays} days from today.` };
  return { ok: true, value: new Date(expiresAtMs) };
}

/** Shape of the secrets this service hands out (session tokens, invite codes): 32 bytes in base64url. */
const SECRET_SHAPE = /^[A-Za-z0-9_-]{43}$/;
export function isSecretShaped(value: string): boolean {
  return SECRET_SHAPE.test(value);
}

/**
 * The key a client address is rate-limited under. An IPv6 client is limited by its /64, the block one
 * subscriber line is given (otherwise each of its 2^64 addresses would get its own allowance); an
 * IPv4-mapped IPv6 address counts as its IPv4 address. Anything else is used trimmed and bounded.
 */
export function addressKey(raw: string): string {
  const address = raw.trim().toLowerCase().replace(/%.*$/, '');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (mapped && isIPv4(mapped[1]!)) return mapped[1]!;
  if (isIPv4(address)) return address;
  if (isIPv6(address)) return `${expandIPv6(address).slice(0, 4).join(':')}::/64`;
  return address.slice(0, 100);
}

/** The eight hextets of an IPv6 address, without leading zeros. */
function expandIPv6(address: string): string[] {
  let text = address;
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const middle = tail === undefined ? [] : Array(8 - left.length - right.length).fill('0');
  return [...left, ...middle, ...right].map((h) => Number.parseInt(h, 16).toString(16));
}
