/**
 * The four-level industry classification NSE and BSE share (macro-economic sector → sector → industry
 * → basic industry), reduced to the levels the API serves. `weight` is the share of listed companies;
 * `words` feed generated company names, `margin` the typical net margin.
 */
interface IndustryDef {
  industry: string;
  words: string[];
}

export interface SectorDef {
  macro: string;
  sector: string;
  weight: number;
  margin: number;
  industries: IndustryDef[];
}

export const SECTORS: SectorDef[] = [
  {
    macro: 'Financial Services',
    sector: 'Financial Services',
    weight: 14,
    margin: 0.18,
    industries: [
      { industry: 'Banks', words: ['Bank', 'Co-operative Bank', 'Small Finance Bank'] },
      {
        industry: 'Finance',
        words: ['Finance', 'Finvest', 'Fincorp', 'Leasing & Finance', 'Credit', 'Capital'],
      },
      {
        industry: 'Capital Markets',
        words: ['Securities', 'Stock Brokers', 'Broking', 'Wealth', 'Asset Management'],
      },
      { industry: 'Insurance', words: ['Insurance', 'Life Insurance', 'General Insurance'] },
    ],
  },
  {
    macro: 'Industrials',
    sector: 'Capital Goods',
    weight: 10,
    margin: 0.08,
    industries: [
      {
        industry: 'Industrial Products',
        words: ['Engineering', 'Forgings', 'Castings', 'Pipes', 'Bearings', 'Valves'],
      },
      {
        industry: 'Electrical Equipment',
        words: ['Electricals', 'Transformers', 'Switchgear', 'Cables', 'Power Systems'],
      },
      { industry: 'Industrial Manufacturing', words: ['Machines', 'Machinery', 'Equipments', 'Industries'] },
      { industry: 'Aerospace & Defense', words: ['Defence Systems', 'Aeronautics', 'Aerospace'] },
    ],
  },
  {
    macro: 'Commodities',
    sector: 'Chemicals',
    weight: 8,
    margin: 0.09,
    industries: [
      {
        industry: 'Chemicals & Petrochemicals',
        words: ['Chemicals', 'Organics', 'Petrochem', 'Dyes', 'Intermediates'],
      },
      {
        industry: 'Fertilizers & Agrochemicals',
        words: ['Fertilisers', 'Agrochem', 'Crop Science', 'Agro Chemicals'],
      },
      { industry: 'Paints & Coatings', words: ['Paints', 'Coatings', 'Resins'] },
    ],
  },
  {
    macro: 'Commodities',
    sector: 'Metals & Mining',
    weight: 6,
    margin: 0.07,
    industries: [
      { industry: 'Ferrous Metals', words: ['Steel', 'Steel & Alloys', 'Ispat', 'Iron', 'Metaliks'] },
      { industry: 'Non - Ferrous Metals', words: ['Aluminium', 'Copper', 'Metals', 'Zinc', 'Alloys'] },
      { industry: 'Minerals & Mining', words: ['Minerals', 'Mining', 'Mines & Minerals'] },
    ],
  },
  {
    macro: 'Commodities',
    sector: 'Construction Materials',
    weight: 3,
    margin: 0.08,
    industries: [
      { industry: 'Cement & Cement Products', words: ['Cements', 'Cement', 'Building Products', 'Ceramics'] },
    ],
  },
  {
    macro: 'Commodities',
    sector: 'Forest Materials',
    weight: 2,
    margin: 0.06,
    industries: [
      {
        industry: 'Paper, Forest & Jute Products',
        words: ['Papers', 'Paper Mills', 'Jute Mills', 'Boards', 'Plywood'],
      },
    ],
  },
  {
    macro: 'Consumer Discretionary',
    sector: 'Textiles',
    weight: 7,
    margin: 0.05,
    industries: [
      {
        industry: 'Textiles & Apparels',
        words: [
          'Textiles',
          'Spinning Mills',
          'Fabrics',
          'Synthetics',
          'Silk Mills',
          'Denim',
          'Apparels',
          'Knitwear',
        ],
      },
    ],
  },
  {
    macro: 'Consumer Discretionary',
    sector: 'Automobile and Auto Components',
    weight: 5,
    margin: 0.07,
    industries: [
      {
        industry: 'Auto Components',
        words: ['Auto Components', 'Autoparts', 'Auto Industries', 'Gears', 'Tyres', 'Wheels'],
      },
      { industry: 'Automobiles', words: ['Motors', 'Automobiles', 'Tractors', 'Auto'] },
    ],
  },
  {
    macro: 'Consumer Discretionary',
    sector: 'Consumer Durables',
    weight: 4,
    margin: 0.07,
    industries: [
      {
        industry: 'Consumer Durables',
        words: ['Appliances', 'Home Products', 'Electronics', 'Jewellers', 'Gems', 'Footwear'],
      },
    ],
  },
  {
    macro: 'Consumer Discretionary',
    sector: 'Consumer Services',
    weight: 3,
    margin: 0.06,
    industries: [
      { industry: 'Leisure Services', words: ['Hotels', 'Resorts', 'Hospitality', 'Travels'] },
      { industry: 'Retailing', words: ['Retail', 'Mart', 'Stores', 'Fashions', 'E-Commerce'] },
    ],
  },
  {
    macro: 'Consumer Discretionary',
    sector: 'Media, Entertainment & Publication',
    weight: 2,
    margin: 0.06,
    industries: [
      {
        industry: 'Entertainment',
        words: ['Media', 'Entertainment', 'Films', 'Broadcasting', 'Publications'],
      },
    ],
  },
  {
    macro: 'Consumer Discretionary',
    sector: 'Realty',
    weight: 3,
    margin: 0.12,
    industries: [
      { industry: 'Realty', words: ['Realty', 'Developers', 'Estates', 'Housing', 'Properties', 'Buildcon'] },
    ],
  },
  {
    macro: 'Fast Moving Consumer Goods',
    sector: 'Fast Moving Consumer Goods',
    weight: 6,
    margin: 0.09,
    industries: [
      {
        industry: 'Food Products',
        words: ['Foods', 'Agro Foods', 'Dairy', 'Edible Oils', 'Sugars', 'Tea', 'Beverages'],
      },
      { industry: 'Personal Products', words: ['Personal Care', 'Cosmetics', 'Consumer Products'] },
      {
        industry: 'Agricultural Food & other Products',
        words: ['Agro Products', 'Rice Mills', 'Seeds', 'Spices'],
      },
    ],
  },
  {
    macro: 'Healthcare',
    sector: 'Healthcare',
    weight: 6,
    margin: 0.12,
    industries: [
      {
        industry: 'Pharmaceuticals & Biotechnology',
        words: ['Pharmaceuticals', 'Pharma', 'Lifesciences', 'Drugs', 'Remedies', 'Laboratories', 'Biotech'],
      },
      { industry: 'Healthcare Services', words: ['Hospitals', 'Healthcare', 'Diagnostics', 'Medicare'] },
    ],
  },
  {
    macro: 'Information Technology',
    sector: 'Information Technology',
    weight: 6,
    margin: 0.14,
    industries: [
      {
        industry: 'IT - Software',
        words: ['Infotech', 'Software', 'Technologies', 'Systems', 'Infosolutions', 'Digital', 'Datasoft'],
      },
      { industry: 'IT - Services', words: ['IT Services', 'Tech Services', 'Consultancy Services'] },
    ],
  },
  {
    macro: 'Industrials',
    sector: 'Construction',
    weight: 4,
    margin: 0.06,
    industries: [
      {
        industry: 'Construction',
        words: ['Constructions', 'Infrastructure', 'Infra Projects', 'Engineers', 'Projects'],
      },
    ],
  },
  {
    macro: 'Energy',
    sector: 'Oil, Gas & Consumable Fuels',
    weight: 2,
    margin: 0.07,
    industries: [
      { industry: 'Petroleum Products', words: ['Petroleum', 'Refineries', 'Lubricants', 'Oil'] },
      { industry: 'Gas', words: ['Gas', 'Gas Distribution', 'LPG'] },
    ],
  },
  {
    macro: 'Utilities',
    sector: 'Power',
    weight: 2,
    margin: 0.1,
    industries: [{ industry: 'Power', words: ['Power', 'Energy', 'Green Energy', 'Renewables', 'Solar'] }],
  },
  {
    macro: 'Services',
    sector: 'Services',
    weight: 4,
    margin: 0.07,
    industries: [
      {
        industry: 'Transport Services',
        words: ['Logistics', 'Shipping', 'Transport', 'Carriers', 'Freight'],
      },
      {
        industry: 'Commercial Services & Supplies',
        words: ['Services', 'Facility Management', 'Education', 'Consulting'],
      },
    ],
  },
  {
    macro: 'Telecommunication',
    sector: 'Telecommunication',
    weight: 1,
    margin: 0.05,
    industries: [
      { industry: 'Telecom - Services', words: ['Telecom', 'Communications', 'Networks', 'Telelinks'] },
    ],
  },
  {
    macro: 'Diversified',
    sector: 'Diversified',
    weight: 1,
    margin: 0.07,
    industries: [
      {
        industry: 'Diversified',
        words: ['Enterprises', 'Industries', 'Holdings', 'Ventures', 'Corporation'],
      },
    ],
  },
];

/** Taxonomy of listed funds and debt, which the exchange classification leaves out. */
export const FUND_CLASS = { macro: 'Funds', sector: 'Funds' } as const;
export const DEBT_CLASS = { macro: 'Debt', sector: 'Debt' } as const;
