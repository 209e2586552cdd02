/**
 * Turns the services' pino JSON lines into one readable line each for a terminal:
 *
 *   equities-data     │ 09:41:02 INFO  equities-data listening grpcPort=50053 opsPort=9103
 *
 * Anything that is not a pino JSON object passes through unchanged behind the prefix.
 */

const ESC = '\u001b[';
const paint = (code: string) => (text: string) => `${ESC}${code}m${text}${ESC}0m`;
const plain = (text: string) => text;

export const colours = {
  dim: paint('2'),
  bold: paint('1'),
  red: paint('31'),
  green: paint('32'),
  yellow: paint('33'),
  blue: paint('34'),
  magenta: paint('35'),
  cyan: paint('36'),
  grey: paint('90'),
};
type Paint = (text: string) => string;

const PREFIX_COLOURS: Paint[] = [
  colours.cyan,
  colours.magenta,
  colours.blue,
  colours.yellow,
  colours.green,
  paint('96'),
  paint('95'),
];

const LEVELS: Record<string, { label: string; paint: Paint }> = {
  trace: { label: 'TRACE', paint: colours.grey },
  debug: { label: 'DEBUG', paint: colours.blue },
  info: { label: 'INFO ', paint: colours.green },
  warn: { label: 'WARN ', paint: colours.yellow },
  error: { label: 'ERROR', paint: colours.red },
  fatal: { label: 'FATAL', paint: paint('41;97') },
};
// pino's numeric levels, for a logger configured without the label formatter.
const NUMERIC_LEVELS: Record<number, string> = {
  10: 'trace',
  20: 'debug',
  30: 'info',
  40: 'warn',
  50: 'error',
  60: 'fatal',
};

/** Fields every line carries that the prefix and the time column already show. */
const HIDDEN = new Set(['level', 'time', 'msg', 'service', 'pid', 'hostname', 'v']);

export interface Formatter {
  /** The `name │ ` prefix, padded so every service's lines align. */
  prefix: string;
  /** One raw stdout/stderr line in, one or more display lines out. */
  format: (line: string) => string[];
}

export function useColour(stream: NodeJS.WriteStream = process.stdout): boolean {
  if (process.env.NO_COLOR) return false;
  if (process.env.FORCE_COLOR && process.env.FORCE_COLOR !== '0') return true;
  return stream.isTTY === true && stream.hasColors?.() === true;
}

function clock(time: unknown): string {
  const date = typeof time === 'string' || typeof time === 'number' ? new Date(time) : new Date();
  const d = Number.isNaN(date.getTime()) ? new Date() : date;
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}

function renderValue(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  if (value === null || typeof value !== 'object') return String(value);
  return JSON.stringify(value);
}

/** pino's err serializer gives `{ type, message, stack, ...extra }`; show the stack on its own lines. */
function renderError(
  key: string,
  err: Record<string, unknown>,
  c: typeof colours,
): { inline: string; extra: string[] } {
  const { type, message, stack, ...rest } = err;
  const head = `${key}=${renderValue(`${type ?? 'Error'}: ${message ?? ''}`)}`;
  const more = Object.keys(rest).length > 0 ? ` ${key}.details=${JSON.stringify(rest)}` : '';
  const stackLines = typeof stack === 'string' ? stack.split('\n').slice(1) : [];
  return { inline: head + more, extra: stackLines.map((l) => c.dim(`    ${l.trim()}`)) };
}

export function createFormatter(name: string, width: number, index: number, colour: boolean): Formatter {
  const c = colour
    ? colours
    : (Object.fromEntries(Object.keys(colours).map((k) => [k, plain])) as typeof colours);
  const tint = colour ? PREFIX_COLOURS[index % PREFIX_COLOURS.length]! : plain;
  const prefix = `${tint(name.padEnd(width))} ${c.dim('│')} `;

  const format = (line: string): string[] => {
    let record: Record<string, unknown> | undefined;
    if (line.startsWith('{')) {
      try {
        const parsed: unknown = JSON.parse(line);
        if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
          record = parsed as Record<string, unknown>;
      } catch {
        record = undefined;
      }
    }
    if (!record || !('level' in record)) return [prefix + line];

    const levelName =
      typeof record.level === 'number' ? (NUMERIC_LEVELS[record.level] ?? 'info') : String(record.level);
    const level = LEVELS[levelName] ?? { label: levelName.toUpperCase().padEnd(5), paint: plain };
    const parts = [c.dim(clock(record.time)), (colour ? level.paint : plain)(level.label)];
    if (record.msg !== undefined) parts.push(String(record.msg));
    const extra: string[] = [];
    for (const [key, value] of Object.entries(record)) {
      if (HIDDEN.has(key)) continue;
      if ((key === 'err' || key === 'error') && value && typeof value === 'object' && 'message' in value) {
        const rendered = renderError(key, value as Record<string, unknown>, c);
        parts.push(rendered.inline);
        extra.push(...rendered.extra);
      } else {
        parts.push(`${c.grey(`${key}=`)}${renderValue(value)}`);
      }
    }
    return [prefix + parts.join(' '), ...extra.map((l) => prefix + l)];
  };

  return { prefix, format };
}
