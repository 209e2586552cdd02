import type { common } from '@mdp/proto';

const DATA_OPEN = Buffer.from('{"data":');
const NULL = Buffer.from('null');
const META_OPEN = ',"meta":{"as_of":"';

/** `","route":"<route>"`, per route name (a closed set: the catalogue's operation ids). */
const routeParts = new Map<string, string>();
/** The last millisecond's `as_of` text: several answers share each millisecond under load. */
let asOfMs = Number.NaN;
let asOf = '';

/**
 * The SPEC 2.1 envelope, assembled around the service's pre-serialised document without parsing or
 * decoding it: `{"data": <bytes as sent>, "meta": {as_of, route, ...service meta}}`. Bytes, not a
 * string: the document goes out as it came (a 365-day page is tens of kilobytes; decoding it to a
 * string and encoding it again for the socket was work per request).
 */
export function envelope(doc: common.Document, route: string, now: number): Buffer {
  const data = doc.data_json.length > 0 ? doc.data_json : NULL;
  let routePart = routeParts.get(route);
  if (routePart === undefined) {
    routePart = `","route":${JSON.stringify(route)}`;
    routeParts.set(route, routePart);
  }
  if (now !== asOfMs) {
    asOfMs = now;
    asOf = new Date(now).toISOString();
  }
  const extra =
    doc.meta_json.length > 2 ? `,${doc.meta_json.toString('utf8', 1, doc.meta_json.length - 1)}` : '';
  const meta = `${META_OPEN}${asOf}${routePart}${extra}}}`;
  // One allocation: the document's bytes copied once between the two fixed parts.
  const out = Buffer.allocUnsafe(DATA_OPEN.length + data.length + Buffer.byteLength(meta));
  out.set(DATA_OPEN, 0);
  out.set(data, DATA_OPEN.length);
  out.write(meta, DATA_OPEN.length + data.length, 'utf8');
  return out;
}
