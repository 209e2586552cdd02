import type { common } from '@mdp/proto';

const DATA_OPEN = Buffer.from('{"data":');
const NULL = Buffer.from('null');

/**
 * The SPEC 2.1 envelope, assembled around the service's pre-serialised document without parsing or
 * decoding it: `{"data": <bytes as sent>, "meta": {as_of, route, ...service meta}}`. Bytes, not a
 * string: the document goes out as it came (a 365-day page is tens of kilobytes; decoding it to a
 * string and encoding it again for the socket was work per request).
 */
export function envelope(doc: common.Document, route: string, now: number): Buffer {
  const data = doc.data_json.length > 0 ? doc.data_json : NULL;
  const extra = doc.meta_json.length > 2 ? `,${doc.meta_json.toString('utf8').slice(1, -1)}` : '';
  const meta = `,"meta":{"as_of":"${new Date(now).toISOString()}","route":${JSON.stringify(route)}${extra}}}`;
  return Buffer.concat([DATA_OPEN, data, Buffer.from(meta)]);
}
