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
