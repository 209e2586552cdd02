import groups from './brands.json' with { type: 'json' };

/**
 * Well-known brands of listed Indian companies: what people type when they do not know the company's
 * legal name. Shipped with the service (public knowledge, not exchange data); `import brands` without
 * files loads it, and CSV files of `symbol,brand[,isin]` rows add to it.
 *
 * Each entry is keyed by its owner's ISIN, which survives a change of symbol; the NSE symbol is there
 * for the reader (and is the fallback when no listed stock has the ISIN, as after a split that issued a
 * new one). A brand is listed under the company that sells it in India: the listed Indian company,
 * including a listed subsidiary of a foreign group (Nestle India's Maggi) and a master franchisee or
 * bottler (Jubilant's Domino's, Varun Beverages' Pepsi), never an unlisted parent or sister company.
 * The list is data (brands.json, grouped by sector), bundled into the service with its code.
 * test/stocks/brands.test.ts checks every ISIN and symbol against NSE's list of equities.
 */
export interface BrandOwner {
  /** ISIN of the owner's equity shares. */
  isin: string;
  /** NSE symbol of the owner, for readability. */
  symbol: string;
  brands: string[];
}

export const BUILT_IN_BRANDS: readonly BrandOwner[] = groups.flatMap((g) => g.owners);
