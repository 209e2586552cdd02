import { createClient } from '@mdp/grpc';
import { connectNats, DATA_CHANGED, type NatsConnection, subscribeJson } from '@mdp/nats';
import { calendarInForce, putCalendarInForce, TradingCalendar } from '@mdp/nse-calendar';
import { calendar } from '@mdp/proto';
import { Gauge, grpcClientMetrics, type Logger, type Registry } from '@mdp/telemetry';
import { ExponentialBackoff } from 'cockatiel';

const backoff = new ExponentialBackoff({ initialDelay: 500, maxDelay: 30_000 });

export interface CalendarFollower {
  /** Asks the owner for its calendar now (what an announcement and the poll do). */
  refresh(): Promise<void>;
  /** Stops following: waits for a calendar being applied (expiries being moved), not for a read in flight. */
  close(): Promise<void>;
}

/**
 * Keeps this process on the calendar equities-data has in force: read at start (the seed serves until
 * the first answer, retried with backoff), again whenever equities-data announces a data change (an
 * import of a holiday list is one) or this service's own data changes (a new load's expiries are
 * checked against the calendar), and every `pollMs` as the backstop for a lost announcement. A new
 * calendar is put in force whole, then `onChange` runs with it (and is retried with the next refresh
 * when it fails).
 */
export function followCalendar(opts: {
  address: string;
  natsUrl: string;
  logger: Logger;
  registry: Registry;
  onChange: (calendar: TradingCalendar) => Promise<void>;
  /**
   * The version of what `onChange` works on: a new one runs it again with the same calendar (a
   * regenerated dataset has its expiries moved within a poll).
   */
  dataVersion?: () => Promise<string | number>;
  pollMs?: number;
}): CalendarFollower {
  const client = createClient(calendar.TradingCalendarServiceService, opts.address, {
    target: 'equities-data',
    metrics: grpcClientMetrics(opts.registry),
    defaultDeadlineMs: 5_000,
    reads: true,
  });
  // What this process works by, beside equities-data's own gauge: a replica that cannot read the
  // owner's calendar stays on the seed, and MdpHolidayCalendarEnding names it.
  new Gauge({
    name: 'options_analytics_holiday_calendar_end_timestamp_seconds',
    help: 'When the trading calendar options-analytics has in force runs out (00:00 IST on 1 January after its last year)',
    registers: [opts.registry],
    collect() {
      this.set(calendarInForce().endMs() / 1000);
    },
  });
  let closed = false;
  let applied: string | undefined;
  let running = Promise.resolve();
  /** What a refresh is doing with what it read (the calendar put in force, `onChange`): closing waits for it. */
  let applying: Promise<void> = Promise.resolve();
  const applyCalendar = async (answer: calendar.TradingCalendar, stamp: string) => {
    const next = new TradingCalendar(
      answer.days.map((d) => ({
        date: d.date,
        kind: d.kind as 'holiday' | 'special' | 'clearing',
        description: d.description,
      })),
      answer.last_year,
    );
    const before = calendarInForce();
    putCalendarInForce(next);
    await opts.onChange(next);
    // The data version read before onChange ran: whatever was written since (onChange's own moves, or
    // a load that committed while it ran) makes the next refresh run it again. Reading it afterwards
    // would count a load onChange never saw as checked, and leave its expiries on a closed day.
    applied = stamp;
    if (before.version !== next.version)
      opts.logger.info({ lastYear: next.lastYear, version: next.version }, 'trading calendar in force');
  };
  const fetchAndApply = async () => {
    const [answer, data] = await Promise.all([client.call.getTradingCalendar({}), opts.dataVersion?.()]);
    // Closed while the read was out (equities-data slow or away: closing did not wait for it).
    if (closed) return;
    const stamp = `${answer.version}|${data ?? ''}`;
    if (stamp === applied) return;
    const apply = applyCalendar(answer, stamp);
    applying = apply.catch(() => {});
    await apply;
  };
  const refresh = () => {
    // One at a time; a failed refresh does not stop the next one.
    running = running.catch(() => {}).then(() => (closed ? undefined : fetchAndApply()));
    return running;
  };

  const onAnnouncement = () =>
    void refresh().catch((err: Error) =>
      opts.logger.warn({ err: err.message }, 'trading calendar refresh failed'),
    );
  let timer: NodeJS.Timeout | undefined;
  const first = async (attempt = backoff.next()): Promise<void> => {
    await refresh().catch((err: Error) => {
      if (closed) return;
      opts.logger.warn(
        { err: err.message, retryMs: Math.round(attempt.duration) },
        'trading calendar not read yet; the seed serves',
      );
      timer = setTimeout(() => void first(attempt.next(undefined)), attempt.duration);
    });
  };
  void first();
  const poll = setInterval(onAnnouncement, opts.pollMs ?? 60_000);
  poll.unref();

  let nc: NatsConnection | undefined;
  void connectNats({ url: opts.natsUrl, name: 'options-calendar', logger: opts.logger }).then(
    (c) => {
      if (closed) return void c.close();
      nc = c;
      // equities: the calendar may have changed; options: the data onChange works on has.
      for (const service of ['equities', 'options'])
        subscribeJson(c, `${DATA_CHANGED}.${service}`, onAnnouncement, opts.logger);
    },
    (err: Error) =>
      opts.logger.warn({ err: err.message }, 'calendar announcements unavailable; polling only'),
  );

  return {
    refresh,
    close: async () => {
      closed = true;
      clearTimeout(timer);
      clearInterval(poll);
      await nc?.drain().catch(() => {});
      // Not the read in flight: with equities-data away it lasts its whole deadline, and what it brings
      // is dropped once closed. Moving expiries, if begun, is finished.
      await applying;
      client.close();
    },
  };
}
