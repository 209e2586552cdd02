/**
 * A holiday list that cannot be taken whole. `line` is the CSV line, or for NSE's JSON the 1-based
 * entry within `segment`; the message names the file and that place, then what is wrong (`detail`).
 */
export class HolidayFileError extends Error {
  readonly detail: string;

  constructor(
    readonly file: string,
    readonly line: number,
    message: string,
    readonly segment?: string,
  ) {
    super(
      segment === undefined ? `${file}:${line}: ${message}` : `${file}: ${segment} entry ${line}: ${message}`,
    );
    this.name = 'HolidayFileError';
    this.detail = message;
  }
}
