/** Set on a parsed query when a name or value is not valid percent-encoding; validation reports it. */
export const MALFORMED = Symbol('malformed query parameter');

/** More distinct parameters than any route declares is refused before any other work. */
export const MAX_QUERY_PARAMS = 32;

export type ParsedQuery = Record<string, string | string[]> & { [MALFORMED]?: string };

function decode(component: string): string {
  return decodeURIComponent(component.replace(/\+/g, ' '));
}

/**
 * Strict `application/x-www-form-urlencoded` parsing: malformed escapes are reported instead of being
 * passed through or replaced, and a name given twice keeps both values so validation can refuse it.
 */
export function parseQueryString(qs: string): ParsedQuery {
  const out: ParsedQuery = Object.create(null);
  if (qs === '') return out;
  for (const part of qs.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const rawName = eq < 0 ? part : part.slice(0, eq);
    const rawValue = eq < 0 ? '' : part.slice(eq + 1);
    let name: string;
    let value: string;
    try {
      name = decode(rawName);
      value = decode(rawValue);
    } catch {
      out[MALFORMED] = rawName;
      return out;
    }
    const existing = out[name];
    if (existing === undefined) out[name] = value;
    else out[name] = Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return out;
}
