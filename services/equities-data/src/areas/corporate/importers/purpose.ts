/**
 * What NSE's corporate-action wording means. The same action is worded differently by the
 * corporate-actions API ("Face Value Split (Sub-Division) - From Rs 10/- Per Share To Re 1/- Per
 * Share", "Bonus- 1:2") and the PR zip's bc file ("FV SPLT FRM RS 10 TO RS 2", "INTDIV - RS 7 PER SH").
 * Splits, consolidations and equity bonuses change the share count (ratio new:old shares);
 * dividends carry rupees per share; rights, demergers, buybacks and capital reductions are named.
 */
export type ParsedPurpose =
  | { kind: 'split' | 'bonus'; ratioNew: number; ratioOld: number; description: string }
  | { kind: 'dividend'; amount: number; description: string }
  | { kind: 'rights' | 'demerger' | 'buyback' | 'capital_reduction' | 'other'; description: string };

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
const RUPEES = String.raw`(?:RS|RE)\.?\s*([\d.]+)`;

export function parsePurpose(raw: string): ParsedPurpose {
  const description = raw.replace(/\s+/g, ' ').trim();
  const t = description.toUpperCase();
  const split = new RegExp(`(?:SPLIT|SPLT|CONSOLIDATION).*?(?:FROM|FRM)\\s+${RUPEES}.*?TO\\s+${RUPEES}`).exec(
    t,
  );
  if (split) {
    // Face value from A to B: every old share becomes A/B new ones, kept as whole numbers.
    const from = Math.round(Number(split[1]) * 100);
    const to = Math.round(Number(split[2]) * 100);
    const g = gcd(from, to);
    return { kind: 'split', ratioNew: from / g, ratioOld: to / g, description };
  }
  const bonus = /^BONUS\s*-?\s*(\d+)\s*:\s*(\d+)/.exec(t);
  if (bonus) {
    const [a, b] = [Number(bonus[1]), Number(bonus[2])];
    return { kind: 'bonus', ratioNew: a + b, ratioOld: b, description };
  }
  // Bonus preference shares (NCRPS) leave the equity share count unchanged.
  if (t.startsWith('BONUS')) return { kind: 'other', description };
  const dividend = new RegExp(`(?:DIVIDEND|DIV)\\b.*?${RUPEES}`).exec(t);
  if (dividend) return { kind: 'dividend', amount: Number(dividend[1]), description };
  if (t.startsWith('RIGHTS')) return { kind: 'rights', description };
  if (t.startsWith('DEMERGER')) return { kind: 'demerger', description };
  if (t.startsWith('BUY BACK') || t.startsWith('BUYBACK')) return { kind: 'buyback', description };
  if (t.startsWith('CAP RED') || t.includes('CAPITAL REDUCTION'))
    return { kind: 'capital_reduction', description };
  return { kind: 'other', description };
}
