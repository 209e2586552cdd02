// Numeric settings of the bench scripts from the environment: a wrong value stops the run with its name
// rather than becoming NaN inside autocannon or a chaos schedule.

/** The whole number in `env[name]` (at least `min`), or `fallback` when it is unset or empty. */
export function envInt(
  name: string,
  fallback: number,
  min = 1,
  env: NodeJS.ProcessEnv = process.env,
): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < min)
    throw new Error(`${name} must be a whole number of at least ${min} (got "${raw}")`);
  return value;
}
