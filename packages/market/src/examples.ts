/**
 * Names of the default generated dataset (seed DEFAULT_SEED, DEFAULT_SIZE stocks) that the READMEs,
 * the k6 scripts and `make run`'s banner give as examples. The market is fictional, so a real name such
 * as TCS is a 404 here; these are the names a new user can type. `examples.test.ts` proves each still
 * plays its part, so a change to the generator that renames them fails a test instead of the docs.
 */
export const DEFAULT_EXAMPLES = {
  /** The largest listed company: F&O underlying, filer, in the indices. */
  stock: 'ARAVALIHOU',
  stockName: 'Aravali Housing Limited',
  /** A search query that finds `stock` first. */
  search: 'aravali',
  /** The next largest companies, for batch quotes. */
  peers: ['ANUPAMIRO', 'EVERESTDYE'],
  /** A brand name and the company that owns it. */
  brand: 'Trizo',
  brandOwner: 'CHAMBALPOW',
  /** A former symbol and the company's current one. */
  formerSymbol: 'PRITHVIELE',
  renamedTo: 'GODAVARICA',
  /** A listed ETF (financials are a 404 for it). */
  etf: 'ADITYABIR',
} as const;
