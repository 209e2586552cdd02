/**
 * Which of this service's import kinds an NSE file is, from its name and first lines (see the
 * equities-data service's recogniser for the other kinds of a folder of exchange files).
 */
export type OptionsFileKind = 'fo-bhavcopy' | 'fo-lots';

export function recogniseOptionsFile(file: { name: string; head: string }): OptionsFileKind | undefined {
  const [first = '', second = ''] = file.head
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .filter((l) => l.trim() !== '');
  const header = first.split(',').map((c) => c.trim().toUpperCase());
  // The UDiFF common bhavcopy has the same columns in every segment: the first row's Sgmt says FO.
  if (['TRADDT', 'FININSTRMTP', 'TCKRSYMB', 'STRKPRIC', 'OPTNTP'].every((c) => header.includes(c)))
    return second.split(',')[header.indexOf('SGMT')]?.trim() === 'FO' ? 'fo-bhavcopy' : undefined;
  if (header[0] === 'UNDERLYING' && header[1] === 'SYMBOL' && /^[A-Z]{3}-\d{2}$/.test(header[2] ?? ''))
    return 'fo-lots';
  return undefined;
}
