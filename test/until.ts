type Pending = false | null | undefined;

/**
 * Polls `check` every `every` ms until it gives something other than false, null or undefined, and
 * returns that; throws naming `what` (a function: what it says at that time) after `ms`.
 */
export async function until<T>(
  what: string | (() => string),
  check: () => T | Pending | Promise<T | Pending>,
  ms = 15_000,
  every = 50,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const got = await check();
    if (got !== false && got !== null && got !== undefined) return got;
    if (Date.now() > end)
      throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()} (${ms} ms)`);
    await new Promise((r) => setTimeout(r, every));
  }
}
