/** The stage an archive operation failed in: `exportDay` throws `export` or `verify`, `restoreArchivedDay` `restore`. */
export type ArchiveStage = 'export' | 'verify' | 'restore';

/** A failed export, verification or restore, naming the stage; `reasons` lists what was found wrong. */
export class ArchiveError extends Error {
  override readonly name = 'ArchiveError';
  constructor(
    readonly stage: ArchiveStage,
    readonly day: string,
    message: string,
    readonly reasons: readonly string[] = [],
    options?: ErrorOptions,
  ) {
    super(`${stage} of ${day}: ${message}${reasons.length > 0 ? ` (${reasons.join('; ')})` : ''}`, options);
  }
}

export const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** How `found` (events and sha256 of some lines) differs from the seal, one sentence each. */
export function sealDifferences(
  what: string,
  found: { events: number; sha256: string },
  seal: { events: number; sha256: string },
): string[] {
  const out: string[] = [];
  if (found.events !== seal.events) out.push(`${what} has ${found.events} events, the seal ${seal.events}`);
  if (found.sha256 !== seal.sha256) out.push(`${what} has sha256 ${found.sha256}, the seal ${seal.sha256}`);
  return out;
}
