/**
 * ISIN check digits (ISO 6166): letters become two digits (A = 10 … Z = 35), then the Luhn algorithm
 * over the digit string gives the twelfth character.
 */
const ISIN_SHAPE = /^[A-Z]{2}[A-Z0-9]{9}[0-9]$/;

export function isinCheckDigit(first11: string): number {
  let digits = '';
  for (const ch of first11) {
    const code = ch.charCodeAt(0);
    digits += code >= 65 ? String(code - 55) : ch;
  }
  let sum = 0;
  // Luhn from the right: the rightmost digit of the payload is doubled (the check digit is not there yet).
  for (let i = digits.length - 1, double = true; i >= 0; i--, double = !double) {
    let v = digits.charCodeAt(i) - 48;
    if (double) {
      v *= 2;
      if (v > 9) v -= 9;
    }
    sum += v;
  }
  return (10 - (sum % 10)) % 10;
}

export function isValidIsin(isin: string): boolean {
  return ISIN_SHAPE.test(isin) && isinCheckDigit(isin.slice(0, 11)) === Number(isin[11]);
}

/** Completes an 11-character ISIN body with its check digit. */
export function withCheckDigit(first11: string): string {
  return `${first11}${isinCheckDigit(first11)}`;
}
