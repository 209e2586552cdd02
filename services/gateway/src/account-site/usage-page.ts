import { INTERFACES } from '@mdp/usage';
import { barChart } from './charts.ts';
import { type Html, html } from './html.ts';
import { formatIst, page, type SignedIn } from './layout.ts';

interface UsageWindow {
  period: string;
  used: number;
  limit: number | null;
  remaining: number | null;
  resets_at: string;
  by_interface: Record<string, number>;
}

/** `/v1/me/usage`'s document (SPEC 2.5), exactly as the API returns it. */
export interface UsageDocument {
  plan: string;
  day: UsageWindow;
  month: UsageWindow;
}

/** The ledger's usage history (GetUsageHistory). */
export interface UsageHistory {
  days: { day: string; units: number }[];
  hours: { hour: string; units: number }[];
  by_route: { day: Record<string, number>; month: Record<string, number> };
}

const HOUR_IST = new Intl.DateTimeFormat('en-IN', {
  timeZone: 'Asia/Kolkata',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});

/** A day (YYYY-MM-DD, a calendar date) as a tick under its bar: "28 Nov". */
const DAY_TICK = new Intl.DateTimeFormat('en-IN', { timeZone: 'UTC', day: 'numeric', month: 'short' });

const count = (n: number | null) => (n === null ? 'unlimited' : n.toLocaleString('en-IN'));

function windowStats(title: string, w: UsageWindow): Html {
  return html`<dl class="stat" aria-label="${title}">
  <dt>${title} (${w.period})</dt>
  <dd><span data-figure="${title === 'Today' ? 'day' : 'month'}-used">${w.used.toLocaleString('en-IN')}</span> used of ${count(w.limit)}</dd>
  <dt>Remaining</dt><dd>${count(w.remaining)}</dd>
  <dt>Resets</dt><dd>${formatIst(Date.parse(w.resets_at))}</dd>
</dl>`;
}

function routeTable(caption: string, byRoute: Record<string, number>): Html {
  const rows = Object.entries(byRoute).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  if (rows.length === 0) return html`<p>${caption}: nothing yet.</p>`;
  return html`<div class="table-wrap"><table>
<caption class="visually-hidden">${caption}</caption>
<thead><tr><th scope="col">Route</th><th scope="col" class="num">Units</th></tr></thead>
<tbody>${rows.map(([route, units]) => html`<tr><td><code>${route}</code></td><td class="num">${units}</td></tr>`)}</tbody>
</table></div>`;
}

/**
 * The usage page. The headline figures are the usage document itself (what `/v1/me/usage` says at the
 * same moment); the charts and the route table come from the recorded events, which may trail it by the
 * ledger consumer's lag, so today's bar shows the headline figure instead.
 */
export function usagePage(o: {
  user: SignedIn;
  usage: UsageDocument;
  history: UsageHistory;
  burstPerMinute: number | null;
}): string {
  const { usage, history } = o;
  // Ticks counted back from the latest bar, which always has one: evenly spaced, never two side by side.
  const days = history.days.map((d, i) => ({
    label: d.day,
    value: d.day === usage.day.period ? usage.day.used : d.units,
    ...((history.days.length - 1 - i) % 5 === 0
      ? { tick: DAY_TICK.format(new Date(`${d.day}T00:00:00Z`)) }
      : {}),
  }));
  const hours = history.hours.map((h, i) => ({
    label: `${HOUR_IST.format(new Date(h.hour))} IST`,
    value: h.units,
    ...((history.hours.length - 1 - i) % 4 === 0 ? { tick: HOUR_IST.format(new Date(h.hour)) } : {}),
  }));
  const interfaces = INTERFACES.map(
    (via) =>
      html`<tr><th scope="row">${via === 'rest' ? 'REST API' : 'MCP tool server'}</th><td class="num">${usage.day.by_interface[via] ?? 0}</td><td class="num">${usage.month.by_interface[via] ?? 0}</td></tr>`,
  );
  return page(
    'Usage',
    html`<p>Plan <strong data-figure="plan">${usage.plan}</strong>. A 200 response costs one unit; errors cost nothing. Days and months are Indian Standard Time.</p>
<div class="stats">
${windowStats('Today', usage.day)}
${windowStats('This month', usage.month)}
<dl class="stat" aria-label="Burst cap">
  <dt>Burst cap</dt><dd>${o.burstPerMinute === null ? 'none' : `${o.burstPerMinute} requests in any minute`}</dd>
</dl>
</div>
<h2>Last 30 days</h2>
${barChart('chart-days', 'Units per IST day, last 30 days', days)}
<h2>Last 24 hours</h2>
${barChart('chart-hours', 'Units per hour (IST), last 24 hours', hours)}
<h2>By interface</h2>
<div class="table-wrap"><table>
<thead><tr><th scope="col">Interface</th><th scope="col" class="num">Today</th><th scope="col" class="num">This month</th></tr></thead>
<tbody>${interfaces}</tbody></table></div>
<h2>By route today</h2>
${routeTable('Units by route today', history.by_route.day)}
<h2>By route this month</h2>
${routeTable('Units by route this month', history.by_route.month)}`,
    o.user,
  );
}
