// Settings of the bench scripts from the environment: a wrong value stops the run with its name rather
// than becoming NaN inside autocannon or a chaos schedule, or a scenario silently skipped.

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

/** The regular expression in `env[name]`, or undefined when it is unset or empty; one that does not parse stops the run. */
export function envPattern(name: string, env: NodeJS.ProcessEnv = process.env): RegExp | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  try {
    return new RegExp(raw);
  } catch (err) {
    throw new Error(`${name} must be a regular expression (got "${raw}": ${(err as Error).message})`);
  }
}

/**
 * The comma-separated subset of `known` in `env[name]` (empty when unset: the caller's "all"). An unknown
 * entry stops the run naming the variable and the choices.
 */
export function envChoices<T extends string>(
  name: string,
  known: readonly T[],
  env: NodeJS.ProcessEnv = process.env,
): T[] {
  const chosen = (env[name] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const key of chosen)
    if (!(known as readonly string[]).includes(key))
      throw new Error(`${name}: unknown choice "${key}" (known: ${known.join(', ')})`);
  return chosen as T[];
}

/** The one choice of `known` in `env[name]`, or `fallback` when it is unset or empty. */
export function envChoice<T extends string>(
  name: string,
  known: readonly T[],
  fallback: T,
  env: NodeJS.ProcessEnv = process.env,
): T {
  const chosen = envChoices(name, known, env);
  if (chosen.length > 1) throw new Error(`${name}: one of ${known.join(', ')} (got "${env[name]}")`);
  return chosen[0] ?? fallback;
}

/**
 * The scenarios to run: those `env[name]` chooses (comma-separated keys of `defaults` or `optIn`), or
 * `defaults` when it chooses none. An opt-in scenario (one too long for every run) runs only when named.
 */
export function envScenarios<D extends string, O extends string>(
  name: string,
  defaults: readonly D[],
  optIn: readonly O[],
  env: NodeJS.ProcessEnv = process.env,
): (D | O)[] {
  const chosen = envChoices<D | O>(name, [...defaults, ...optIn], env);
  return chosen.length > 0 ? chosen : [...defaults];
}
