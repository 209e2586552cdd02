import { readFileSync, writeFileSync } from 'node:fs';

/** What a generator prints: on drift (given the stale files' names), when all match, when written. */
export interface GeneratedMessages {
  stale: (names: string) => string;
  current: string;
  wrote: string;
}

/**
 * The end of every generator of committed files (the OpenAPI document, the TypeScript and Python
 * clients): without --check, writes `files` (name, text) into `folder`; with --check (`make *-check`,
 * CI), writes nothing and exits 1 naming each file whose committed text differs or that is missing.
 */
export function writeOrCheck(
  folder: URL,
  files: readonly (readonly [name: string, text: string])[],
  say: GeneratedMessages,
): void {
  if (process.argv.includes('--check')) {
    const stale = files.filter(([name, text]) => {
      try {
        return readFileSync(new URL(name, folder), 'utf8') !== text;
      } catch {
        return true;
      }
    });
    if (stale.length > 0) {
      console.error(say.stale(stale.map(([n]) => n).join(', ')));
      process.exit(1);
    }
    console.log(say.current);
  } else {
    for (const [name, text] of files) writeFileSync(new URL(name, folder), text);
    console.log(say.wrote);
  }
}
