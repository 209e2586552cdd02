import type { AliasKind } from '@mdp/market';
import type { DayNumber } from '@mdp/nse-calendar';
import type pg from 'pg';
import { cleanText, readCsv, readHeaderless, type SourceFile } from '../../../importers/csv.ts';
import { type Applied, defineKind, ParseResult, rejectionOf } from '../../../importers/kind.ts';
import type { Rejection, Sourced } from '../../../importers/report.ts';
import { normalize } from '../domain/search/text.ts';
import { BUILT_IN_BRANDS } from './brands.ts';
import { addAliases, cleanIsin } from './stock-book.ts';

/** Importers of the other names a stock is searched by: former symbols, former names, brands. */

interface Holder {
  id: number;
  name: string;
  listed: boolean;
}

/** Current and former NSE symbols of every stock (listed stocks first), and BSE codes. */
async function symbolDirectory(client: pg.PoolClient) {
  const { rows } = await client.query<{
    id: number;
    name: string;
    listed: boolean;
    nse_symbol: string | null;
    bse_code: string | null;
    symbol: string;
  }>(
    `SELECT id, name, status = 'listed' AS listed, nse_symbol, bse_code, symbol FROM stocks
      ORDER BY status = 'listed' DESC, delisted_on DESC NULLS FIRST, id`,
  );
  const current = new Map<string, Holder>();
  for (const r of rows) {
    for (const key of [r.nse_symbol, r.symbol, r.bse_code]) {
      if (key && !current.has(key.toUpperCase()))
        current.set(key.toUpperCase(), { id: r.id, name: r.name, listed: r.listed });
    }
  }
  const former = new Map<string, Holder>();
  const { rows: aliasRows } = await client.query<{
    alias: string;
    id: number;
    name: string;
    listed: boolean;
  }>(
    `SELECT a.alias, s.id, s.name, s.status = 'listed' AS listed FROM aliases a JOIN stocks s ON s.id = a.stock_id
      WHERE a.kind = 'former_symbol' ORDER BY a.until DESC NULLS LAST`,
  );
  for (const r of aliasRows)
    if (!former.has(r.alias)) former.set(r.alias, { id: r.id, name: r.name, listed: r.listed });
  return { current, former };
}

interface SymbolChange {
  company: string;
  old: string;
  new: string;
  date: DayNumber;
}

/**
 * NSE symbolchange.csv (headerless: company, old symbol, new symbol, date). Each row gives the stock
 * now trading under the end of its chain of renames the old symbol as an alias, valid until the date.
 */
export const nseSymbolChanges = defineKind<SymbolChange>({
  describe: 'NSE symbolchange.csv (headerless: company, old symbol, new symbol, date)',
  needsFiles: true,
  parse(file: SourceFile) {
    const out = new ParseResult<SymbolChange>(file.path);
    for (const r of readHeaderless(file, ['COMPANY', 'OLD', 'NEW', 'DATE'])) {
      const [old, now] = [r.text('OLD').toUpperCase(), r.text('NEW').toUpperCase()];
      if (!old || !now) {
        out.reject(r.line, 'old or new symbol missing');
        continue;
      }
      if (old === now) {
        out.reject(r.line, 'old and new symbol are the same');
        continue;
      }
      out.ok(r.line, { company: cleanText(r.text('COMPANY')), old, new: now, date: r.date('DATE') });
    }
    return out;
  },
  async apply(client, rows): Promise<Applied<SymbolChange>> {
    const { current } = await symbolDirectory(client);
    // The change that next renamed a symbol after a given date, to follow chains such as A → B → C.
    const next = new Map<string, SymbolChange[]>();
    for (const { value } of rows) next.set(value.old, [...(next.get(value.old) ?? []), value]);
    const finalSymbol = (c: SymbolChange): string => {
      let sym = c.new;
      let date = c.date;
      for (let hops = 0; hops < 20; hops++) {
        const later = (next.get(sym) ?? []).filter((x) => x.date > date).sort((a, b) => a.date - b.date)[0];
        if (!later || current.has(sym)) break;
        sym = later.new;
        date = later.date;
      }
      return sym;
    };
    const loaded: Sourced<SymbolChange>[] = [];
    const rejections: Rejection[] = [];
    const aliases: { stockId: number; kind: AliasKind; alias: string; until: DayNumber | null }[] = [];
    for (const row of rows) {
      const target = finalSymbol(row.value);
      const holder = current.get(target);
      if (!holder) {
        rejections.push(rejectionOf(row, 'no stock in the master trades under the new symbol'));
        continue;
      }
      aliases.push({
        stockId: holder.id,
        kind: 'former_symbol',
        alias: row.value.old,
        until: row.value.date,
      });
      loaded.push(row);
    }
    return { loaded, rejections, changed: await addAliases(client, aliases) };
  },
});

interface NameChange {
  symbol: string;
  previous: string;
  next: string;
  date: DayNumber;
}

/** NSE namechange.csv (NCH_SYMBOL, NCH_PREV_NAME, NCH_NEW_NAME, NCH_DT): former names as aliases. */
export const nseNameChanges = defineKind<NameChange>({
  describe: 'NSE namechange.csv (NCH_SYMBOL, NCH_PREV_NAME, NCH_NEW_NAME, NCH_DT)',
  needsFiles: true,
  parse(file) {
    const out = new ParseResult<NameChange>(file.path);
    for (const r of readCsv(file, ['NCH SYMBOL', 'NCH PREV NAME', 'NCH NEW NAME', 'NCH DT']).rows) {
      const previous = cleanText(r.text('NCH PREV NAME'));
      if (!r.text('NCH SYMBOL') || !previous) {
        out.reject(r.line, 'symbol or previous name missing');
        continue;
      }
      out.ok(r.line, {
        symbol: r.text('NCH SYMBOL').toUpperCase(),
        previous,
        next: cleanText(r.text('NCH NEW NAME')),
        date: r.date('NCH DT'),
      });
    }
    return out;
  },
  async apply(client, rows) {
    const { current, former } = await symbolDirectory(client);
    const loaded: Sourced<NameChange>[] = [];
    const rejections: Rejection[] = [];
    const aliases: { stockId: number; kind: AliasKind; alias: string; until: DayNumber | null }[] = [];
    for (const row of rows) {
      const holder = current.get(row.value.symbol) ?? former.get(row.value.symbol);
      if (!holder) {
        rejections.push(rejectionOf(row, 'no stock in the master has this symbol (now or formerly)'));
        continue;
      }
      if (normalize(row.value.previous) === normalize(holder.name)) {
        rejections.push(
          rejectionOf(row, 'the previous name is the current name (a change of spelling only)'),
        );
        continue;
      }
      aliases.push({
        stockId: holder.id,
        kind: 'former_name',
        alias: row.value.previous,
        until: row.value.date,
      });
      loaded.push(row);
    }
    return { loaded, rejections, changed: await addAliases(client, aliases) };
  },
});

interface Brand {
  /** NSE symbol (or BSE code); empty when the row names its stock by ISIN only. */
  symbol: string;
  /** ISIN of the owner's shares, when given: it names the stock before the symbol does. */
  isin: string | null;
  brand: string;
}

/** Listed stocks by ISIN, and by issue (ISIN without serial and check digit) when only one has it. */
async function listedIsinDirectory(client: pg.PoolClient) {
  const { rows } = await client.query<{ id: number; name: string; isin: string }>(
    `SELECT id, name, isin FROM stocks WHERE status = 'listed' AND isin IS NOT NULL ORDER BY id`,
  );
  const byIsin = new Map<string, Holder>();
  const byIssue = new Map<string, Holder | null>();
  for (const r of rows) {
    const holder = { id: r.id, name: r.name, listed: true };
    byIsin.set(r.isin, holder);
    const issue = r.isin.slice(0, 9);
    byIssue.set(issue, byIssue.has(issue) ? null : holder);
  }
  // An ISIN replaced after a split or consolidation still names the issuer's one listed equity.
  return (isin: string) => byIsin.get(isin) ?? byIssue.get(isin.slice(0, 9)) ?? undefined;
}

/**
 * Brand names: the built-in list (no file), or CSV files with `symbol,brand` columns and an optional
 * `isin` column. A row is given to the listed stock with its ISIN, else to the one trading under its
 * symbol. Brands are only ever added: an import of files adds to the built-in list imported before.
 */
export const brands = defineKind<Brand>({
  describe: 'brand names: the built-in list when no file is given, or CSV files with symbol,brand[,isin]',
  needsFiles: false,
  parse(file) {
    const out = new ParseResult<Brand>(file.path);
    for (const r of readCsv(file, ['SYMBOL', 'BRAND']).rows) {
      const isin = r.has('ISIN') ? cleanIsin(r.text('ISIN')) : null;
      if (r.has('ISIN') && !isin) out.reject(r.line, 'invalid ISIN');
      else if ((!r.text('SYMBOL') && !isin) || !r.text('BRAND'))
        out.reject(r.line, 'symbol (or ISIN) or brand missing');
      else
        out.ok(r.line, { symbol: r.text('SYMBOL').toUpperCase(), isin, brand: cleanText(r.text('BRAND')) });
    }
    return out;
  },
  async apply(client, rows) {
    const { current } = await symbolDirectory(client);
    const byIsin = await listedIsinDirectory(client);
    const loaded: Sourced<Brand>[] = [];
    const rejections: Rejection[] = [];
    const aliases: { stockId: number; kind: AliasKind; alias: string; until: DayNumber | null }[] = [];
    for (const row of rows) {
      const { isin, symbol } = row.value;
      const holder = (isin ? byIsin(isin) : undefined) ?? (symbol ? current.get(symbol) : undefined);
      if (!holder?.listed) {
        const reason = isin ? 'no listed stock has this ISIN or symbol' : 'no listed stock has this symbol';
        rejections.push(rejectionOf(row, reason));
        continue;
      }
      aliases.push({ stockId: holder.id, kind: 'brand', alias: row.value.brand, until: null });
      loaded.push(row);
    }
    return { loaded, rejections, changed: await addAliases(client, aliases) };
  },
});

/** The built-in brand list as parsed rows, for `import brands` without files. */
export function builtInBrandRows(): Sourced<Brand>[] {
  let line = 0;
  return BUILT_IN_BRANDS.flatMap(({ isin, symbol, brands }) =>
    brands.map((brand) => ({ file: '(built-in brands)', line: ++line, value: { symbol, isin, brand } })),
  );
}
