import type { Rng } from './rng.ts';

/** Leading words of Indian company names: places, rivers, deities, founders' names, virtues. */
const PROLOGUE = [
  'Aadhya',
  'Aakash',
  'Aarav',
  'Abhay',
  'Abhinav',
  'Achal',
  'Adarsh',
  'Adinath',
  'Advait',
  'Agam',
  'Agni',
  'Ahimsa',
  'Ajay',
  'Akash',
  'Akshay',
  'Alankar',
  'Alok',
  'Amar',
  'Ambika',
  'Amrit',
  'Anand',
  'Anant',
  'Anjani',
  'Ankur',
  'Annapurna',
  'Anupam',
  'Apex',
  'Aravali',
  'Archana',
  'Arihant',
  'Arjun',
  'Aroma',
  'Arun',
  'Aryan',
  'Ashirwad',
  'Ashoka',
  'Asian',
  'Atlas',
  'Atul',
  'Aurobindo',
  'Avadh',
  'Avanti',
  'Bajrang',
  'Balaji',
  'Banas',
  'Bhagirath',
  'Bharat',
  'Bhavani',
  'Bhoomi',
  'Brahma',
  'Brij',
  'Chaitanya',
  'Chambal',
  'Chandan',
  'Chetak',
  'Chirag',
  'Damodar',
  'Darshan',
  'Deccan',
  'Deep',
  'Devika',
  'Dhanlaxmi',
  'Dharam',
  'Dhruv',
  'Dwarka',
  'Eastern',
  'Ekta',
  'Everest',
  'Gagan',
  'Ganga',
  'Ganesh',
  'Garuda',
  'Gautam',
  'Gayatri',
  'Girnar',
  'Global',
  'Godavari',
  'Gokul',
  'Golden',
  'Gomti',
  'Gopal',
  'Govind',
  'Gujarat',
  'Gulmohar',
  'Hari',
  'Harsha',
  'Heritage',
  'Himalaya',
  'Hindustan',
  'Indo',
  'Indra',
  'Indus',
  'Jagannath',
  'Jai',
  'Jaipur',
  'Janaki',
  'Jayant',
  'Jeevan',
  'Jhelum',
  'Jyoti',
  'Kailash',
  'Kalinga',
  'Kalpana',
  'Kalyan',
  'Kamadhenu',
  'Kanchan',
  'Kanha',
  'Karnavati',
  'Kaveri',
  'Kedar',
  'Keshav',
  'Kiran',
  'Kohinoor',
  'Konark',
  'Krishna',
  'Kshitij',
  'Kumaon',
  'Kusum',
  'Lakshmi',
  'Lotus',
  'Madhav',
  'Madhur',
  'Magadh',
  'Mahalaxmi',
  'Mahanadi',
  'Mahavir',
  'Malabar',
  'Malwa',
  'Mangal',
  'Manas',
  'Mandakini',
  'Maruti',
  'Mayur',
  'Meghna',
  'Mewar',
  'Milan',
  'Mohan',
  'Mukund',
  'Nalanda',
  'Nandan',
  'Narmada',
  'Navbharat',
  'Navin',
  'Neel',
  'Nilgiri',
  'Nirmal',
  'Nitin',
  'Omkar',
  'Orient',
  'Padma',
  'Pallavi',
  'Panchsheel',
  'Paras',
  'Parijat',
  'Pavan',
  'Pioneer',
  'Pooja',
  'Prabhat',
  'Pragati',
  'Prakash',
  'Pratap',
  'Premier',
  'Prithvi',
  'Pushpak',
  'Raghav',
  'Rajdhani',
  'Rajshree',
  'Ramky',
  'Rashmi',
  'Ratna',
  'Ravi',
  'Rishabh',
  'Rohini',
  'Rudra',
  'Sabari',
  'Sagar',
  'Sahyadri',
  'Samarth',
  'Sangam',
  'Sanjeevani',
  'Saraswati',
  'Sarthak',
  'Satluj',
  'Saurashtra',
  'Savera',
  'Shakti',
  'Shalimar',
  'Shankar',
  'Sharda',
  'Shivam',
  'Shubh',
  'Siddharth',
  'Sindhu',
  'Sita',
  'Sonal',
  'Sudarshan',
  'Sumeru',
  'Sunrise',
  'Surya',
  'Suvarna',
  'Swastik',
  'Tapti',
  'Trishul',
  'Triveni',
  'Tulsi',
  'Udaan',
  'Ujjwal',
  'Unnati',
  'Utkal',
  'Uttam',
  'Vaibhav',
  'Vaishali',
  'Vardhman',
  'Varun',
  'Vasant',
  'Vasudha',
  'Vedant',
  'Venkatesh',
  'Vidarbha',
  'Vijay',
  'Vikas',
  'Vikram',
  'Vindhya',
  'Vinayak',
  'Vishal',
  'Vishwa',
  'Vrindavan',
  'Western',
  'Yamuna',
  'Yash',
  'Yogesh',
  'Zenith',
];

/** Honorifics and qualifiers that sometimes precede the leading word. */
const HONORIFIC = ['Shree', 'Sri', 'Shri', 'New', 'United', 'National', 'Modern', 'Royal', 'Super', 'Indian'];

const SUFFIX = ['Limited', 'Limited', 'Limited', 'Ltd', 'Ltd.', 'India Limited', 'Industries Limited'];

const SYLLABLES = [
  'ka',
  'zo',
  'ri',
  'mo',
  'ta',
  'nu',
  'vi',
  'lo',
  'pe',
  'xa',
  'qu',
  'sy',
  'bi',
  'fe',
  'gu',
  'ly',
  'ne',
  'ro',
  'zy',
  'tri',
];

const STOP_WORDS = new Set(['SHREE', 'SRI', 'SHRI', 'NEW', 'THE', 'AND', 'OF', 'INDIA', 'LIMITED', 'LTD']);

export function companyName(rng: Rng, words: readonly string[]): string {
  const lead = rng.chance(0.12) ? `${rng.pick(HONORIFIC)} ${rng.pick(PROLOGUE)}` : rng.pick(PROLOGUE);
  const second = rng.chance(0.18) ? ` ${rng.pick(PROLOGUE)}` : '';
  return `${lead}${second} ${rng.pick(words)} ${rng.pick(SUFFIX)}`;
}

/** A made-up consumer brand such as "Kazomo" or "Trilofe". */
export function brandName(rng: Rng): string {
  const n = rng.int(2, 3);
  let word = '';
  for (let i = 0; i < n; i++) word += rng.pick(SYLLABLES);
  return word[0]!.toUpperCase() + word.slice(1);
}

/**
 * Candidate NSE-style symbols for a name, best first and each once: up to ten letters, built from the
 * distinctive words, then numbered. The caller takes the first one not already used, so they are made
 * as asked for (most names need only the first).
 */
export function* symbolCandidates(name: string): Generator<string, void, undefined> {
  const words = name
    .toUpperCase()
    .replace(/&/g, ' ')
    .split(/[^A-Z0-9]+/)
    .filter((w) => w && !STOP_WORDS.has(w));
  const [a = 'X', b = '', c = ''] = words;
  const initials = words.map((w) => w[0]).join('');
  const seen = new Set<string>();
  const raw = [
    a + b.slice(0, 3),
    a.slice(0, 6) + b.slice(0, 4),
    a + b,
    a.slice(0, 4) + b.slice(0, 3) + c.slice(0, 3),
    initials + a.slice(1, 5),
    a,
  ];
  for (const r of raw) {
    const s = r.slice(0, 10);
    if (s.length >= 3 && !seen.has(s)) {
      seen.add(s);
      yield s;
    }
  }
  // Numbered fallbacks stay within ten characters by shortening the stem, never by cutting the number.
  const stem = a.slice(0, 7) + b.slice(0, 2);
  for (let i = 1; i < 1000; i++) {
    const s = `${stem.slice(0, 10 - String(i).length)}${i}`;
    if (!seen.has(s)) {
      seen.add(s);
      yield s;
    }
  }
}

/** The first of a name's symbol candidates that `taken` does not hold. */
export function freeSymbol(name: string, taken: (symbol: string) => boolean): string | undefined {
  for (const s of symbolCandidates(name)) if (!taken(s)) return s;
  return undefined;
}

export const AMCS = [
  'Nippon India',
  'SBI',
  'ICICI Prudential',
  'HDFC',
  'Kotak',
  'UTI',
  'Mirae Asset',
  'Motilal Oswal',
  'Aditya Birla Sun Life',
  'DSP',
  'Axis',
  'Edelweiss',
  'Zerodha',
  'Groww',
  'Bandhan',
  'Tata',
  'Invesco India',
];

export const INDEX_NAMES = [
  'Nifty 50',
  'Nifty Next 50',
  'Nifty Bank',
  'Nifty IT',
  'Nifty Midcap 150',
  'Nifty Smallcap 250',
  'Nifty 100',
  'Nifty 200 Momentum 30',
  'Nifty Alpha 50',
  'Nifty PSU Bank',
  'Nifty Private Bank',
  'Nifty Pharma',
  'Nifty FMCG',
  'Nifty Auto',
  'Nifty Metal',
  'Nifty Realty',
  'Nifty Energy',
  'Nifty Infrastructure',
  'Nifty CPSE',
  'Nifty Dividend Opportunities 50',
  'Nifty 100 Low Volatility 30',
  'Nifty Midcap 50',
  'Nifty India Consumption',
  'Nifty Healthcare',
  'BSE Sensex',
  'BSE 500',
  'Nifty 500',
  'Nifty Financial Services',
  'Nifty Commodities',
  'Nifty Quality 30',
];

export const COMMODITY_ETFS = ['Gold', 'Silver', 'Liquid', 'Gilt 5 Year', 'Bharat Bond 2030', 'Overnight'];
