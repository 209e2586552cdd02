/** A file that is not what its parser expects, at a line (the header is line 1). */
export class FileFormatError extends Error {
  constructor(
    readonly line: number,
    readonly detail: string,
  ) {
    super(`line ${line}: ${detail}`);
  }
}
