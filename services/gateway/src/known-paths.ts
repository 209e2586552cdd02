import type { RouteDef } from './catalogue/index.ts';

/** `/v1/stocks/{symbol}/quote` → the fastify path `/v1/stocks/:symbol/quote`. */
export function fastifyPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1');
}

/**
 * Matches a raw request path against the catalogue, so that any method other than GET on a path that
 * exists is a 405 (with `Allow`) rather than a 404, before the router or a body parser sees it.
 */
export function knownPathMatcher(routes: readonly RouteDef[]): (rawUrl: string) => boolean {
  const patterns = routes.map(
    (r) => new RegExp(`^${r.path.replace(/[.]/g, '\\.').replace(/\{\w+\}/g, '[^/]+')}$`),
  );
  return (rawUrl) => {
    const q = rawUrl.indexOf('?');
    const path = q < 0 ? rawUrl : rawUrl.slice(0, q);
    return patterns.some((p) => p.test(path));
  };
}
