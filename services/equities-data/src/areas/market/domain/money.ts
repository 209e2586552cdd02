/** Hundredths of a crore (exact integers) as the crore figure served: a number with two decimals. */
export const cr = (hundredths: number): number => hundredths / 100;

export interface Side {
  buy: number;
  sell: number;
}

export const sideJson = (s: Side) => ({ buy: cr(s.buy), sell: cr(s.sell), net: cr(s.buy - s.sell) });
