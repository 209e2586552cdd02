import { expect } from 'vitest';
import { HolidayFileError, parseHolidayFile } from './index.ts';

/** For the parsers' tests: the HolidayFileError parsing `text` throws (fails when it parses). */
export function errorOf(path: string, text: string): HolidayFileError {
  try {
    parseHolidayFile(path, text);
  } catch (err) {
    expect(err).toBeInstanceOf(HolidayFileError);
    return err as HolidayFileError;
  }
  throw new Error(`${path} parsed`);
}
