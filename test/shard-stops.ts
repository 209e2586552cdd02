import { entries, logged } from './process-logs.ts';
import { type Stack, shardProcess } from './stack.ts';

/**
 * The chart's `config.shutdownGraceMs`: a stopping shard has half of it to hand over, as deployed (the
 * test stacks give every process 3 s).
 */
export const CHART_SHUTDOWN_GRACE_MS = 10_000;

/**
 * A shard process's first take-over of a handed-over run from `after` on, told from `after`: when, and
 * of the registry read that found it, how long it waited once asked and how long it took; or null.
 */
export function takeOverOf(output: readonly string[], after: number): string | null {
  const entry = logged(output, 'taking over', after);
  if (entry === null) return null;
  return `${Date.parse(entry.time) - after} ms (its read asked ${entry.waitedMs} ms before it began, ${entry.readMs} ms long)`;
}

/** A shard process stopped gracefully (at `at`, ms since the epoch), and what it logged of its hand-over. */
export interface Stopped {
  at: number;
  /** Everything the process printed (the stack's output is its successor's once it has restarted). */
  output: readonly string[];
  handedOver: number | null;
  /** Each step's end, ms from its stop, as it logged them with its hand-over or its failure. */
  steps: Record<string, number> | null;
  /** Why it did not hand over, as it logged it. */
  noHandOver: { err: string; ms: number; budgetMs: number } | null;
  /** Its exit code, and the messages it logged from its stop. */
  exit: number | null;
  lastWords: string[];
}

/** Stops a shard's process gracefully (SIGTERM), as a rolling update does, and reads its hand-over. */
export async function stopShard(stack: Stack, shard: number): Promise<Stopped> {
  const at = Date.now();
  const output = stack.procs.get(shardProcess(shard))!.output;
  const exit = await stack.stop(shardProcess(shard));
  const handedOver = logged(output, 'handed over', at);
  const noHandOver = logged(output, 'no hand-over', at);
  return {
    at,
    output,
    handedOver: handedOver === null ? null : Date.parse(handedOver.time),
    steps: ((handedOver ?? noHandOver)?.steps ?? null) as Stopped['steps'],
    noHandOver: noHandOver as Stopped['noHandOver'],
    exit,
    lastWords: entries(output, at).map((e) => String(e.msg)),
  };
}

/** How a stopped process's hand-over went, from its stop: when, or why not. */
export function handOverOf(stop: Stopped): string {
  const steps = stop.steps === null ? '' : `; its steps ended at ${JSON.stringify(stop.steps)} ms`;
  if (stop.handedOver !== null) return `handed over at ${stop.handedOver - stop.at} ms${steps}`;
  const no = stop.noHandOver;
  if (no !== null) return `no hand-over (${no.err}, after ${no.ms} ms of ${no.budgetMs}${steps})`;
  return `no hand-over logged (exit ${stop.exit}; its log from its stop: ${stop.lastWords.join(' / ')})`;
}
