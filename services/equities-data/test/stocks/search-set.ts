/**
 * Hand-written search queries over the real universe and the symbol each must return first. Former
 * names and symbols come from NSE's namechange.csv and symbolchange.csv; brands from the built-in list.
 * Exact symbols, BSE codes and ISINs are added from the real files by the test itself.
 */
export interface SearchCase {
  q: string;
  top: string;
  kind:
    | 'symbol'
    | 'bse_code'
    | 'isin'
    | 'name'
    | 'brand'
    | 'former_name'
    | 'former_symbol'
    | 'typo'
    | 'sector';
  sector?: string;
  industry?: string;
}

const c = (kind: SearchCase['kind'], pairs: [string, string][]): SearchCase[] =>
  pairs.map(([q, top]) => ({ q, top, kind }));

export const HAND_WRITTEN: SearchCase[] = [
  ...c('name', [
    ['reliance industries', 'RELIANCE'],
    ['state bank of india', 'SBIN'],
    ['hindustan unilever', 'HINDUNILVR'],
    ['bajaj auto', 'BAJAJ-AUTO'],
    ['mahindra', 'M&M'],
    ['larsen', 'LT'],
    ['asian paints', 'ASIANPAINT'],
    ['sun pharmaceutical', 'SUNPHARMA'],
    ['kotak mahindra bank', 'KOTAKBANK'],
    ['coal india', 'COALINDIA'],
    ['Tata Consultancy Services', 'TCS'],
    ['ultratech cement', 'ULTRACEMCO'],
  ]),
  ...c('brand', [
    ['airtel', 'BHARTIARTL'],
    ['zomato', 'ETERNAL'],
    ['tanishq', 'TITAN'],
    ['maggi', 'NESTLEIND'],
    ['fevicol', 'PIDILITIND'],
    ['royal enfield', 'EICHERMOT'],
    ['jockey', 'PAGEIND'],
    ['dmart', 'DMART'],
    ['HUL', 'HINDUNILVR'],
    ['SBI', 'SBIN'],
    ['L&T', 'LT'],
    ["domino's", 'JUBLFOOD'],
    ['zudio', 'TRENT'],
    ['LIC', 'LICI'],
    ['blinkit', 'ETERNAL'],
    ['jaguar land rover', 'TMPV'],
  ]),
  ...c('former_name', [
    ['Zomato Limited', 'ETERNAL'],
    ['Hero Honda Motors', 'HEROMOTOCO'],
    ['Hindustan Lever', 'HINDUNILVR'],
    ['UTI Bank', 'AXISBANK'],
    ['Bharti Tele-Ventures', 'BHARTIARTL'],
    ['Infosys Technologies', 'INFY'],
    ['Maruti Udyog', 'MARUTI'],
    ['Tata Iron and Steel', 'TATASTEEL'],
    ['Sesa Sterlite', 'VEDL'],
    ['Cadila Healthcare', 'ZYDUSLIFE'],
    ['Bharti Infratel', 'INDUSTOWER'],
    ['Motherson Sumi Systems', 'MOTHERSON'],
    ['NIIT Technologies', 'COFORGE'],
    ['Indiabulls Housing Finance', 'SAMMAANCAP'],
    ['Idea Cellular', 'IDEA'],
    ['Ruchi Soya Industries', 'PATANJALI'],
    ['Macrotech Developers', 'LODHA'],
    ['Mundra Port and Special Economic Zone', 'ADANIPORTS'],
    ['Amara Raja Batteries', 'ARE&M'],
    ['Shriram Transport Finance', 'SHRIRAMFIN'],
    ['Videsh Sanchar Nigam', 'TATACOMM'],
    ['Rural Electrification Corporation', 'RECLTD'],
  ]),
  ...c('former_symbol', [
    ['ZOMATO', 'ETERNAL'],
    ['HEROHONDA', 'HEROMOTOCO'],
    ['HINDLEVER', 'HINDUNILVR'],
    ['UTIBANK', 'AXISBANK'],
    ['INFOSYSTCH', 'INFY'],
    ['TISCO', 'TATASTEEL'],
    ['TATAMOTORS', 'TMPV'],
    ['ZEETELE', 'ZEEL'],
    ['CADILAHC', 'ZYDUSLIFE'],
    ['INFRATEL', 'INDUSTOWER'],
    ['MOTHERSUMI', 'MOTHERSON'],
    ['NIITTECH', 'COFORGE'],
    ['MUNDRAPORT', 'ADANIPORTS'],
    ['AMARAJABAT', 'ARE&M'],
    ['SRTRANSFIN', 'SHRIRAMFIN'],
    ['VSNL', 'TATACOMM'],
    ['GMRINFRA', 'GMRAIRPORT'],
    ['LTIM', 'LTM'],
  ]),
  ...c('typo', [
    ['relaince', 'RELIANCE'],
    ['infosis', 'INFY'],
    ['bajaj finanse', 'BAJFINANCE'],
    ['hindalko', 'HINDALCO'],
    ['tata stel', 'TATASTEEL'],
    ['asian pains', 'ASIANPAINT'],
    ['wipor', 'WIPRO'],
    ['kotak mahindar', 'KOTAKBANK'],
    ['larsen toubro', 'LT'],
    ['sun pharama', 'SUNPHARMA'],
    ['bharti airtl', 'BHARTIARTL'],
    ['ultratech cemnt', 'ULTRACEMCO'],
    ['nestel india', 'NESTLEIND'],
    ['adani portz', 'ADANIPORTS'],
    ['icici bnak', 'ICICIBANK'],
    ['britania', 'BRITANNIA'],
  ]),
  { q: 'tata', sector: 'Information Technology', top: 'TCS', kind: 'sector' },
  { q: 'tata', sector: 'Metals & Mining', top: 'TATASTEEL', kind: 'sector' },
  { q: 'bajaj', sector: 'Automobile and Auto Components', top: 'BAJAJ-AUTO', kind: 'sector' },
  { q: 'adani', sector: 'Utilities', top: 'ADANIPOWER', kind: 'sector' },
  { q: 'mahindra', sector: 'Information Technology', top: 'TECHM', kind: 'sector' },
  { q: 'reliance', industry: 'Petroleum Products', top: 'RELIANCE', kind: 'sector' },
  { q: 'hdfc', industry: 'Insurance', top: 'HDFCLIFE', kind: 'sector' },
];
