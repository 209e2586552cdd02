// What the multi-process tests read of a service process's JSON log lines (the stack keeps each
// process's output): a stop's hand-over, a take-over, and a slow run's window for a failure to print.

export type LogEntry = { time: string; msg?: unknown; level?: unknown } & Record<string, unknown>;

/** A process's JSON log lines from `after` on (ms since the epoch). */
export function entries(output: readonly string[], after: number): LogEntry[] {
  const found: LogEntry[] = [];
  for (const line of output.join('').split('\n')) {
    // The last line may still be being written: a diagnostic never fails the test.
    try {
      const entry = JSON.parse(line) as LogEntry;
      if (Date.parse(entry.time) >= after) found.push(entry);
    } catch {}
  }
  return found;
}

/** A process's first JSON log line with a message starting with `msg` at `after` or later, or null. */
export function logged(output: readonly string[], msg: string, after = 0): LogEntry | null {
  return entries(output, after).find((e) => String(e.msg).startsWith(msg)) ?? null;
}

/** At most this many lines a process, the last ones of the window: a failure's message stays readable. */
const MAX_LINES = 30;
const ROUTINE = new Set([
  'time',
  'msg',
  'level',
  'pid',
  'hostname',
  'service',
  'name',
  'v',
  'trace_id',
  'span_id',
]);
/** A gateway's line for each refused request: counted by code, not told (the answers say them). */
const PER_REQUEST = 'request failed';

/**
 * Each process's log lines from `from` to `to` (ms since the epoch), told from `mark`: for a person
 * reading why a run of answers was slow, beside the answers' own times.
 */
export function logsBetween(
  processes: readonly { name: string; output: readonly string[] }[],
  from: number,
  to: number,
  mark: number,
): string {
  return processes
    .map(({ name, output }) => {
      const window = entries(output, from).filter((e) => Date.parse(e.time) <= to);
      const perRequest: Record<string, number> = {};
      const lines = window.filter((e) => {
        if (!String(e.msg).startsWith(PER_REQUEST)) return true;
        perRequest[String(e.code)] = (perRequest[String(e.code)] ?? 0) + 1;
        return false;
      });
      const told = lines.slice(-MAX_LINES).map((e) => {
        const fields = Object.fromEntries(Object.entries(e).filter(([k]) => !ROUTINE.has(k)));
        const extra = Object.keys(fields).length === 0 ? '' : ` ${JSON.stringify(fields)}`;
        return `  ${Date.parse(e.time) - mark} ms ${e.level ?? ''} ${String(e.msg)}${extra}`;
      });
      const cut = lines.length > MAX_LINES ? ` (the last ${MAX_LINES} of ${lines.length})` : '';
      const failed =
        Object.keys(perRequest).length === 0
          ? ''
          : ` (and '${PER_REQUEST}' by code: ${JSON.stringify(perRequest)})`;
      return `${name}${cut}${failed}:${told.length === 0 ? ' nothing' : `\n${told.join('\n')}`}`;
    })
    .join('\n');
}
