/**
 * The bounds of what a subscriber types on the account web site. The auth service enforces them; the
 * site's forms state them (maxlength, minlength, hints) from this one copy.
 */
export const ACCOUNT_BOUNDS = {
  /** RFC 5321's longest forward path. */
  emailMaxLength: 254,
  passwordMinLength: 12,
  passwordMaxLength: 256,
  tokenNameMaxLength: 200,
  /** Furthest a token's expiry may be set, in days from now. */
  tokenExpiryMaxDays: 730,
} as const;
