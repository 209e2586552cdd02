import type { common } from '@mdp/proto';

const DATA_OPEN = Buffer.from('{"data":');
const NULL = Buffer.from('null');
const META_OPEN = Buffer.from(',"meta":{"as_of":"');
const COMMA = 0x2c;
const CLOSE = 0x7d;

/** `","route":"<route>"` as bytes, per route name (a closed set: the catalogue's operation ids). */
const routeParts = new Map<string, Buffer>();
/** The last millisecond's `as_of` text (ASCII): several answers share each millisecond under load. */
let asOfMs = Number.NaN;
let asOf = '';

/**
 * The SPEC 2.1 envelope, assembled around the service's pre-serialised document without parsing or
 * decoding it: `{"data": <bytes as sent>, "meta": {as_of, route, ...service meta}}`. Bytes, not a
 * string: the document and the service's meta keys go out as they came (a 365-day page is tens of
 * kilobytes; decoding it to a string and encoding it again for the socket was work per request), copied
 * once into one allocation between parts made once (the route's) or once a millisecond (`as_of`).
 */
export function envelope(doc: common.Document, route: string, now: number): Buffer {
  const data = doc.data_json.length > 0 ? doc.data_json : NULL;
  let routePart = routeParts.get(route);
  if (routePart === undefined) {
    routePart = Buffer.from(`","route":${JSON.stringify(route)}`);
    routeParts.set(route, routePart);
  }
  if (now !== asOfMs) {
    asOfMs = now;
    asOf = new Date(now).toISOString();
  }
  // The service's meta object without its braces, after a comma: `,"total":3,...` (none for `{}`).
  const meta = doc.meta_json;
  const extra = meta.length > 2 ? meta.length - 1 : 0;
  const out = Buffer.allocUnsafe(
    DATA_OPEN.length + data.length + META_OPEN.length + asOf.length + routePart.length + extra + 2,
  );
  let at = 0;
  out.set(DATA_OPEN, at);
  at += DATA_OPEN.length;
  out.set(data, at);
  at += data.length;
  out.set(META_OPEN, at);
  at += META_OPEN.length;
  at += out.write(asOf, at, 'latin1');
  out.set(routePart, at);
  at += routePart.length;
  if (extra > 0) {
    out[at++] = COMMA;
    out.set(meta.subarray(1, meta.length - 1), at);
    at += meta.length - 2;
  }
  out[at++] = CLOSE;
  out[at] = CLOSE;
  return out;
}
