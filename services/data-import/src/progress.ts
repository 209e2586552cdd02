import { Presets, SingleBar } from 'cli-progress';
import type { ImportEvents, KindResult } from './import-folder.ts';

/**
 * Progress on stderr: a bar over the files on a terminal, one line per kind otherwise (logs of a
 * CronJob or CI keep a line each, not a redrawn bar).
 */
export function progressEvents(stream: NodeJS.WriteStream = process.stderr): ImportEvents & { stop(): void } {
  const line = (text: string) => stream.write(`${text}\n`);
  if (!stream.isTTY) {
    return {
      planned: (files) => line(`import: ${files} file(s) to read`),
      kindStarted: (kind, files) =>
        line(`import: ${kind}: ${files === 0 ? 'built-in list' : `${files} file(s)`}...`),
      fileDone() {},
      stop() {},
      kindFinished: (r: KindResult) =>
        line(
          `import: ${r.kind}: ${r.error ? `FAILED: ${r.error}` : `loaded ${r.loaded}, rejected ${r.rejected}, changed ${r.changed}`} (${r.seconds.toFixed(1)} s)`,
        ),
    };
  }
  let done = 0;
  let kindStart = 0;
  const bar = new SingleBar(
    { format: ' {bar} {value}/{total} files | {kind} | {duration_formatted}', stream, hideCursor: true },
    Presets.shades_classic,
  );
  return {
    planned: (files) => bar.start(files, 0, { kind: 'reading' }),
    kindStarted(kind) {
      kindStart = done;
      bar.update({ kind });
    },
    fileDone: () => bar.update(++done),
    kindFinished(r) {
      // A failed kind's files count as read, so the bar ends full; the report says what failed.
      done = kindStart + r.files.length;
      bar.update(done);
    },
    stop: () => bar.stop(),
  };
}
