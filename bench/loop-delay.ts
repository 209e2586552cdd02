// Event-loop delay of the platform's processes over one bench run, from their own `/metrics`
// (prom-client's nodejs_eventloop_lag_* gauges, whose histogram restarts at every scrape: one scrape
// before the run starts the window, the one after it reads the run alone).
import { EVENT_LOOP_RESOLUTION_MS } from '@mdp/telemetry';

export interface LoopProbe {
  name: string;
  opsPort: number;
}

export interface LoopDelay {
  p99Ms: number;
  maxMs: number;
}

/** A delay gauge of a Prometheus text page, in ms with the sampling interval taken off; NaN if absent. */
export function delayMs(text: string, name: string): number {
  // (Every series carries the registry's default labels: `name{service="…"} value`.)
  const m = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)`, 'm').exec(text);
  return m ? Math.max(0, Number(m[1]) * 1000 - EVENT_LOOP_RESOLUTION_MS) : Number.NaN;
}

/** Each probe's delay since its previous scrape (NaN where a process did not answer). */
export async function loopDelays(probes: LoopProbe[]): Promise<Map<string, LoopDelay>> {
  const read = async (p: LoopProbe): Promise<[string, LoopDelay]> => {
    try {
      const text = await (await fetch(`http://127.0.0.1:${p.opsPort}/metrics`)).text();
      return [
        p.name,
        {
          p99Ms: delayMs(text, 'nodejs_eventloop_lag_p99_seconds'),
          maxMs: delayMs(text, 'nodejs_eventloop_lag_max_seconds'),
        },
      ];
    } catch {
      return [p.name, { p99Ms: Number.NaN, maxMs: Number.NaN }];
    }
  };
  return new Map(await Promise.all(probes.map(read)));
}
