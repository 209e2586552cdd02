import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPool, type Pool } from '@mdp/db';
import { createClient } from '@mdp/grpc';
import { calendar } from '@mdp/proto';
import { grpcClientMetrics, Registry } from '@mdp/telemetry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeGeneratedDataset } from '../services/options-analytics/src/generate/write-dataset.ts';
import { DATABASE_URL, PATIENT_DEADLINES, type Stack, startStack } from './stack.ts';

// The trading calendar is imported data: an operator imports the exchange's list for the coming year
// into a running platform with `make import`, and every service works by it without a restart.

const AS_OF = '2026-11-20';
const LATER = '2026-11-27';
/** An entry of NSE's holiday-master JSON, as the exchange publishes it. */
const entry = (tradingDate: string, weekDay: string, description: string, Sr_no: number) => ({
  tradingDate,
  weekDay,
  description,
  morning_session: '',
  evening_session: '',
  Sr_no,
});
/** The 2027 list (type=trading): Republic Day is a Tuesday; CM and FO close together, CD differs. */
const EQUITY_2027 = [
  entry('26-Jan-2027', 'Tuesday', 'Republic Day', 1),
  entry('26-Mar-2027', 'Friday', 'Good Friday', 2),
  entry('15-Apr-2027', 'Thursday', 'Dr. Baba Saheb Ambedkar Jayanti', 3),
];
const HOLIDAYS_2027 = {
  CM: EQUITY_2027,
  FO: EQUITY_2027,
  CD: [entry('19-Feb-2027', 'Friday', 'Chhatrapati Shivaji Maharaj Jayanti', 1)],
};

let stack: Stack;
let token: string;
let env: NodeJS.ProcessEnv;
let work: string;
let options: Pool;
const registry = new Registry();
let calendarClient: ReturnType<typeof createClient<typeof calendar.TradingCalendarServiceService>>;

const importFolder = (folder: string) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'services/data-import/src/cli.ts', '--json', folder],
      { env, maxBuffer: 16 << 20 },
      (err, stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });

const folderWith = (name: string, file: string, text: string) => {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, file), text);
  return dir;
};

const served = () => calendarClient.call.getTradingCalendar({});

const chain = async (): Promise<{ trade_date: string; expiries: string[] }> => {
  const res = await fetch(`${stack.baseUrl}/v1/options/NIFTY/chain?strikes=1`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: { trade_date: string; expiries: string[] } }).data;
};
const chainExpiries = async () => (await chain()).expiries;

/** When the calendar a service has in force runs out, as its gauge says. */
const calendarEnd = async (
  service: 'equities-data' | 'options-analytics' = 'equities-data',
): Promise<string> => {
  const text = await (await fetch(`http://127.0.0.1:${stack.procs.get(service)!.opsPort}/metrics`)).text();
  const name = `${service.replace('-', '_')}_holiday_calendar_end_timestamp_seconds`;
  const value = new RegExp(`^${name}(?:{[^}]*})? (\\S+)$`, 'm').exec(text)?.[1];
  return new Date(Number(value) * 1000).toISOString();
};

async function eventually<T>(
  read: () => Promise<T>,
  done: (v: T) => boolean,
  timeoutMs = 20_000,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  let last = await read();
  while (!done(last) && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 200));
    last = await read();
  }
  return last;
}

/** NIFTY's derivatives as the data tool generates them, in this test process (on the seed calendar). */
const writeGenerated = (asOf: string) =>
  writeGeneratedDataset(
    options,
    { seed: 20_260_101, asOf, r: 0.065, marketSize: 300, historyDays: 40 },
    {
      ifEmpty: false,
      only: ['NIFTY'],
    },
  );

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'mdp-calendar-'));
  stack = await startStack(PATIENT_DEADLINES);
  // Polled until the platform shows the change: a plan without a burst cap.
  token = (await stack.admin('demo-token', '--plan', 'load-test')).split('\n').at(-1)!;
  env = { ...process.env, ...stack.importEnv(), LOG_LEVEL: 'silent' };
  // NIFTY's derivatives as the default dataset generates them on the seed calendar: its January 2027
  // monthly expires on Tuesday the 26th.
  options = createPool({
    url: DATABASE_URL,
    schema: stack.importEnv().OPTIONS_DB_SCHEMA!,
    max: 2,
    applicationName: 'calendar-test',
  });
  await writeGenerated(AS_OF);
  calendarClient = createClient(
    calendar.TradingCalendarServiceService,
    `127.0.0.1:${stack.procs.get('equities-data')!.port}`,
    {
      target: 'equities-data',
      metrics: grpcClientMetrics(registry),
      defaultDeadlineMs: 5_000,
    },
  );
}, 300_000);

afterAll(async () => {
  calendarClient?.close();
  await options?.end();
  await stack?.shutdown();
  if (work) rmSync(work, { recursive: true, force: true });
}, 30_000);

describe('importing the exchange holiday list into a running platform', () => {
  it('puts 2027 in force everywhere without a restart, moves the expiry on a new holiday, and a repeat changes nothing', async () => {
    const pids = [...stack.procs.values()].map((p) => p.child.pid);
    const before = await served();
    expect(before.last_year).toBe(2026);
    expect(before.days.some((d) => d.date.startsWith('2027'))).toBe(false);
    expect(await calendarEnd()).toBe('2026-12-31T18:30:00.000Z');
    expect(await calendarEnd('options-analytics')).toBe('2026-12-31T18:30:00.000Z');
    expect(await eventually(chainExpiries, (e) => e.includes('2027-01-26'))).toContain('2027-01-26');

    const folder = folderWith('circular', 'holidays-2027.json', JSON.stringify(HOLIDAYS_2027));
    const first = await importFolder(folder);
    expect(first.stderr).not.toMatch(/failed/i);
    expect(first.code).toBe(0);
    const report = JSON.parse(first.stdout) as {
      kinds: {
        kind: string;
        changed: number;
        notes: string[];
        calendar: {
          moved: { from: string; to: string; contracts: Record<string, number> }[];
          lastYear: number;
        };
      }[];
      changed: boolean;
    };
    const holidays = report.kinds.find((k) => k.kind === 'holidays')!;
    expect(holidays.calendar.lastYear).toBe(2027);
    expect(holidays.calendar.moved.map(({ from, to }) => ({ from, to }))).toEqual([
      { from: '2027-01-26', to: '2027-01-25' },
    ]);
    expect(holidays.calendar.moved[0]!.contracts.NIFTY).toBeGreaterThan(0);
    expect(holidays.notes.join('\n')).toMatch(/expiry 2027-01-26 moved to 2027-01-25/);

    // The owner serves 2027's holidays (CM and FO; not the currency segment's) …
    const after = await eventually(served, (c) => c.last_year === 2027);
    expect(after.last_year).toBe(2027);
    expect(after.days.filter((d) => d.date.startsWith('2027'))).toEqual([
      { date: '2027-01-26', kind: 'holiday', description: 'Republic Day' },
      { date: '2027-03-26', kind: 'holiday', description: 'Good Friday' },
      { date: '2027-04-15', kind: 'holiday', description: 'Dr. Baba Saheb Ambedkar Jayanti' },
    ]);
    // … the gauge the MdpHolidayCalendarEnding alert reads moved to the end of 2027 …
    expect(await eventually(calendarEnd, (e) => e.startsWith('2027'))).toBe('2027-12-31T18:30:00.000Z');
    const optionsEnd = await eventually(
      () => calendarEnd('options-analytics'),
      (e) => e.startsWith('2027'),
    );
    expect(optionsEnd).toBe('2027-12-31T18:30:00.000Z');
    // … and the chain lists the January monthly on the Monday before Republic Day.
    const expiries = await eventually(chainExpiries, (e) => !e.includes('2027-01-26'));
    expect(expiries).toContain('2027-01-25');
    expect(expiries).not.toContain('2027-01-26');
    // No service restarted.
    expect([...stack.procs.values()].map((p) => p.child.pid)).toEqual(pids);
    expect([...stack.procs.values()].every((p) => p.child.exitCode === null)).toBe(true);

    // Options analytics works by the same 2027 calendar: NIFTY's data of a later session, written the
    // way the seed calendar dates it (the 26th), has its expiry moved by the service itself.
    await writeGenerated(LATER);
    const later = await eventually(chain, (c) => c.trade_date === LATER);
    expect(later.trade_date).toBe(LATER);
    const moved = await eventually(chainExpiries, (e) => !e.includes('2027-01-26'));
    expect(moved).toContain('2027-01-25');
    expect(moved).not.toContain('2027-01-26');

    const second = await importFolder(folder);
    expect(second.code).toBe(0);
    const again = JSON.parse(second.stdout) as typeof report;
    expect(again.changed).toBe(false);
    expect(again.kinds.find((k) => k.kind === 'holidays')!.calendar.moved).toEqual([]);
    expect((await served()).version).toBe(after.version);
  }, 120_000);

  it('refuses a malformed list naming the file and row, and the calendar in force stays as it was', async () => {
    const held = await served();
    const folder = folderWith(
      'bad',
      'holidays-2028.csv',
      'date,description,segment\n2028-01-26,Republic Day,CM\n2028-02-30,Mahashivratri,CM\n2028-03-10,Holi,CM\n',
    );
    const run = await importFolder(folder);
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout) as { kinds: { kind: string; error?: string }[]; failed: string[] };
    expect(report.failed).toEqual(['holidays']);
    expect(report.kinds.find((k) => k.kind === 'holidays')!.error).toMatch(/holidays-2028\.csv:3\b/);
    await new Promise((r) => setTimeout(r, 1_500));
    const now = await served();
    expect(now.version).toBe(held.version);
    expect(now.last_year).toBe(held.last_year);
  }, 60_000);
});
