import { Rng } from './random.ts';

export interface Company {
  symbol: string;
  name: string;
  sector: string;
  /** Annual revenue in crore, for plausible figures. */
  revenueCr: number;
}

const STEMS = [
  'Aditya',
  'Bharat',
  'Chola',
  'Deccan',
  'Eastern',
  'Ganga',
  'Himalaya',
  'Indus',
  'Jaipur',
  'Kaveri',
  'Lotus',
  'Malabar',
  'Narmada',
  'Orient',
  'Prakash',
  'Rajdhani',
  'Sahyadri',
  'Tapti',
  'Udaya',
  'Vindhya',
  'Western',
  'Yamuna',
  'Zenith',
  'Apex',
  'Shakti',
  'Surya',
  'Kiran',
  'Navin',
  'Pragati',
  'Sagar',
  'Tejas',
  'Vikas',
  'Amrit',
  'Dhruv',
  'Garuda',
  'Kalinga',
  'Konark',
  'Mysore',
  'Nilgiri',
  'Saraswati',
];
const SECTORS: [string, string[]][] = [
  ['Cement', ['Cements', 'Cement Works']],
  ['Steel', ['Steel', 'Ispat', 'Metals']],
  ['Pharmaceuticals', ['Pharma', 'Lifesciences', 'Drugs']],
  ['Information Technology', ['Infotech', 'Technologies', 'Software']],
  ['Automobiles', ['Motors', 'Auto', 'Automotive']],
  ['Chemicals', ['Chemicals', 'Organics', 'Specialty Chemicals']],
  ['FMCG', ['Consumer Products', 'Foods', 'Agro']],
  ['Power', ['Power', 'Energy', 'Renewables']],
  ['Capital Goods', ['Engineering', 'Industries', 'Electricals']],
  ['Textiles', ['Textiles', 'Fabrics', 'Mills']],
  ['Hospitals', ['Healthcare', 'Hospitals']],
  ['Logistics', ['Logistics', 'Shipping']],
];

/**
 * A seeded universe of plausible NSE-style companies. Filings are keyed by symbol only; the equities service
 * owns the real stock universe, and nothing here is read from exchange files.
 */
export function generateCompanies(count: number, seed = 'filings-default'): Company[] {
  const rng = new Rng(`${seed}:companies`);
  const out: Company[] = [];
  const used = new Set<string>();
  while (out.length < count) {
    const stem = rng.pick(STEMS);
    const [sector, suffixes] = rng.pick(SECTORS);
    const suffix = rng.pick(suffixes);
    const name = `${stem} ${suffix} Limited`;
    let symbol = `${stem.slice(0, rng.int(3, Math.min(6, stem.length))).toUpperCase()}${suffix.replace(/\s/g, '').slice(0, rng.int(2, 5)).toUpperCase()}`;
    let n = 1;
    while (used.has(symbol)) symbol = `${symbol.slice(0, 8)}${n++}`;
    used.add(symbol);
    out.push({
      symbol,
      name: out.some((c) => c.name === name) ? `${stem} ${suffix} (${symbol}) Limited` : name,
      sector,
      revenueCr: rng.int(300, 90_000),
    });
  }
  return out;
}
