import type { RouteDef } from './catalogue/index.ts';

/** `/v1/stocks/{symbol}/quote` → the fastify path `/v1/stocks/:symbol/quote`. */
export function fastifyPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1');
}

/**
 * Matches a raw request path against the catalogue, so that any method other than GET on a path that
 * exists is a 405 (with `Allow`) rather than a 404, before the router or a body parser sees it. The
 * catalogue's paths are one expression, made once: a request is one test, not one a route.
 */
export function knownPathMatcher(routes: readonly RouteDef[]): (rawUrl: string) => boolean {
  const alternatives = routes.map((r) => r.path.replace(/[.]/g, '\\.').replace(/\{\w+\}/g, '[^/]+'));
  const known = new RegExp(`^(?:${alternatives.join('|')})$`);
  return (rawUrl) => {
    const q = rawUrl.indexOf('?');
    return known.test(q < 0 ? rawUrl : rawUrl.slice(0, q));
  };
}

/**
 * The path parameter a raw path fails to percent-decode in, when the path is one of the catalogue's
 * (SPEC 4.5 rule 6: a malformed parameter's 400 names it): the router refuses such a path before any
 * route runs, so its validation never sees the parameter.
 */
export function undecodablePathParam(routes: readonly RouteDef[]): (rawUrl: string) => string | undefined {
  const templates = routes.map((r) => r.path.split('/'));
  return (rawUrl) => {
    const q = rawUrl.indexOf('?');
    const segments = (q < 0 ? rawUrl : rawUrl.slice(0, q)).split('/');
    for (const template of templates) {
      if (template.length !== segments.length) continue;
      let undecodable: string | undefined;
      const matches = template.every((part, i) => {
        const segment = segments[i]!;
        const param = /^\{(\w+)\}$/.exec(part)?.[1];
        if (param === undefined) return part === segment;
        if (undecodable === undefined && !decodes(segment)) undecodable = param;
        return segment.length > 0;
      });
      if (matches && undecodable !== undefined) return undecodable;
    }
    return undefined;
  };
}

function decodes(segment: string): boolean {
  try {
    decodeURIComponent(segment);
    return true;
  } catch {
    return false;
  }
}
