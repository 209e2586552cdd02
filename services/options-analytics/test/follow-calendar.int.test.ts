import { GrpcServer } from '@mdp/grpc';
import { calendarInForce, day, putCalendarInForce, SEED_CALENDAR, TradingCalendar } from '@mdp/nse-calendar';
import { calendar } from '@mdp/proto';
import { createLogger, createRegistry, trace } from '@mdp/telemetry';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../test/stack.ts';
import { until } from '../../../test/until.ts';
import { calendarRpcs, type TradingCalendarImpl } from '../../equities-data/src/calendar/rpc.ts';
import { type CalendarFollower, followCalendar } from '../src/calendar/follow.ts';

// options-analytics follows the calendar equities-data serves; when equities-data is not there it keeps
// the one it has (the seed after a start) and takes the owner's as soon as it answers.

const LIST_2027 = new TradingCalendar(
  [{ date: '2027-01-26', kind: 'holiday', description: 'Republic Day' }],
  2027,
);
let follower: CalendarFollower | undefined;
let server: GrpcServer | undefined;

afterAll(async () => {
  await follower?.close();
  await server?.shutdown(0);
  putCalendarInForce(SEED_CALENDAR);
});

/** equities-data's calendar service, serving LIST_2027 on `port` (through `rpcs` when given). */
async function serveCalendar(
  port: number,
  rpcs: TradingCalendarImpl = calendarRpcs(() => LIST_2027),
): Promise<GrpcServer> {
  const s = new GrpcServer({
    logger: createLogger('eq', 'silent'),
    tracer: trace.getTracer('eq'),
    registry: createRegistry('eq'),
  }).add(calendar.TradingCalendarServiceService, rpcs);
  await s.listen('127.0.0.1', port);
  return s;
}

/** A follower of the calendar service on `port`, with no NATS: the poll and `refresh` alone find it. */
const follow = (
  port: number,
  o: Pick<Parameters<typeof followCalendar>[0], 'pollMs' | 'onChange' | 'dataVersion'>,
) =>
  followCalendar({
    address: `127.0.0.1:${port}`,
    natsUrl: 'nats://127.0.0.1:1',
    logger: createLogger('follow-test', 'silent'),
    registry: createRegistry('follow-test'),
    ...o,
  });

describe('following the trading calendar of equities-data', () => {
  it('keeps the seed while equities-data is away, takes its calendar once it answers, and keeps it when it goes again', async () => {
    // What a process has after a start. The workers run several test files in one process (isolate:
    // false), and one before this may have left another calendar in force.
    putCalendarInForce(SEED_CALENDAR);
    const port = await freePort();
    const seen: TradingCalendar[] = [];
    follower = follow(port, {
      pollMs: 200,
      onChange: async (c) => {
        seen.push(c);
      },
    });
    await new Promise((r) => setTimeout(r, 600));
    expect(calendarInForce().lastYear).toBe(2026);
    expect(seen).toEqual([]);

    server = await serveCalendar(port);
    await until('the 2027 calendar in force', () => calendarInForce().lastYear === 2027);
    expect(calendarInForce().isTradingDay(day('2027-01-26'))).toBe(false);
    expect(seen.map((c) => c.version)).toEqual([LIST_2027.version]);

    await server.shutdown(0);
    server = undefined;
    await new Promise((r) => setTimeout(r, 600));
    expect(calendarInForce().version).toBe(LIST_2027.version);
  });

  it('runs again for data that was loaded while it was moving expiries, and not again once nothing changed', async () => {
    await follower?.close();
    putCalendarInForce(SEED_CALENDAR);
    const port = await freePort();
    server = await serveCalendar(port);
    let version = 1;
    const checked: number[] = [];
    let started = 0;
    follower = follow(port, {
      pollMs: 60_000,
      dataVersion: async () => version,
      onChange: async () => {
        started++;
        checked.push(version);
        // A regenerated dataset commits while the first pass runs: that pass never saw its expiries.
        if (started === 1) version = 2;
      },
    });
    await until('a start', () => started === 1);
    await follower.refresh();
    expect(checked).toEqual([1, 2]);
    await follower.refresh();
    expect(checked).toEqual([1, 2]);
  });

  it('closes without waiting for a read of equities-data that has not come back, and applies nothing after', async () => {
    await follower?.close();
    await server?.shutdown(0);
    putCalendarInForce(SEED_CALENDAR);
    const port = await freePort();
    // equities-data taking its time: the read is held until the test lets it go.
    let reads = 0;
    let ended: 'answered' | 'cancelled' | undefined;
    let answer!: () => void;
    const held = new Promise<void>((r) => {
      answer = r;
    });
    const served = calendarRpcs(() => LIST_2027);
    server = await serveCalendar(port, {
      getTradingCalendar: async (req, ctx) => {
        reads++;
        ctx.signal.addEventListener('abort', () => {
          ended ??= 'cancelled';
        });
        await held;
        ended ??= 'answered';
        return served.getTradingCalendar(req, ctx);
      },
    });
    const seen: TradingCalendar[] = [];
    follower = follow(port, {
      pollMs: 60_000,
      onChange: async (c) => {
        seen.push(c);
      },
    });
    await until('a read', () => reads === 1);
    const started = Date.now();
    await follower.close();
    follower = undefined;
    // Closed while the read was still out: neither answered nor given up, long before its 5 s deadline
    // (waiting for the read made a pod's stop last that deadline whenever equities-data was away).
    expect(Date.now() - started).toBeLessThan(2_500);
    expect(ended).toBeUndefined();
    answer();
    await new Promise((r) => setTimeout(r, 300));
    expect(seen).toEqual([]);
    expect(calendarInForce().version).toBe(SEED_CALENDAR.version);
  });
});
