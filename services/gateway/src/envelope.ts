import type { common } from '@mdp/proto';

/**
 * The largest document (its data and meta bytes) answered as text; a larger one goes as bytes. Node
 * writes a text answer and its headers as one string in one write, from a 16 KB buffer on the stack when
 * the string could need it at 3 bytes a character (about 5,400 characters with the headers), where
 * bytes go as the second part of a `writev`. Above that a string is first copied into an allocation of
 * its own. `bench/answer-body.ts`, 4 December: a quote-sized answer 28.1 µs a request as text against
 * 30.9 as bytes (lower in 8 of 8 rounds); a 365-day page 55.1 against 48.4.
 */
export const TEXT_MOST = 4_096;

/**
 * A data service's document as the gateway answers with it (the document cache keeps this form): a small
 * one's JSON and meta members (`,"total":3,…`) as text, decoded once; a large one as its service sent it.
 */
export type AnswerDocument =
  | { readonly text: { readonly data: string; readonly metaMembers: string }; readonly sent?: undefined }
  | { readonly sent: common.Document; readonly text?: undefined };

/** An envelope as it is sent: text when small (`TEXT_MOST`), else UTF-8 bytes. */
export type AnswerBody = string | Buffer;

/** UTF-8 bytes as text, read in place. */
const decoded = (b: Uint8Array, start = 0, end = b.length) =>
  Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8', start, end);

export function answerDocument(sent: common.Document): AnswerDocument {
  const { data_json: data, meta_json: meta } = sent;
  if (data.length + meta.length > TEXT_MOST) return { sent };
  return {
    text: {
      data: data.length > 0 ? decoded(data) : 'null',
      metaMembers: meta.length > 2 ? `,${decoded(meta, 1, meta.length - 1)}` : '',
    },
  };
}

/** The document's `data` JSON as text (what a usage answer's headers are read from). */
export const dataText = (answer: AnswerDocument): string =>
  answer.text !== undefined
    ? answer.text.data
    : answer.sent.data_json.length > 0
      ? decoded(answer.sent.data_json)
      : 'null';

/** An answer's body as text (the tool server and the account site read the envelope). */
export const bodyText = (body: AnswerBody): string =>
  typeof body === 'string' ? body : body.toString('utf8');

const DATA_OPEN = Buffer.from('{"data":');
const NULL = Buffer.from('null');
const META_OPEN = Buffer.from(',"meta":{"as_of":"');
const COMMA = 0x2c;
const CLOSE = 0x7d;

/** `","route":"<route>"`, as text and as bytes, per route name (a closed set: the catalogue's operation ids). */
const routeParts = new Map<string, { text: string; bytes: Buffer }>();
/** The last millisecond's `as_of` (ASCII): several answers share each millisecond under load. */
let asOfMs = Number.NaN;
let asOf = '';

/**
 * The SPEC 2.1 envelope around the service's document, without parsing it: `{"data": <document>,
 * "meta": {as_of, route, ...service meta}}`, the document's JSON and the service's meta members as
 * they came. Parts are made once (the route's) or once a millisecond (`as_of`).
 */
export function envelope(answer: AnswerDocument, route: string, now: number): AnswerBody {
  let routePart = routeParts.get(route);
  if (routePart === undefined) {
    const text = `","route":${JSON.stringify(route)}`;
    routePart = { text, bytes: Buffer.from(text) };
    routeParts.set(route, routePart);
  }
  if (now !== asOfMs) {
    asOfMs = now;
    asOf = new Date(now).toISOString();
  }
  const text = answer.text;
  if (text === undefined) return bytesEnvelope(answer.sent, routePart.bytes);
  return `{"data":${text.data},"meta":{"as_of":"${asOf}${routePart.text}${text.metaMembers}}}`;
}

/** The envelope of a large document, copied once into one allocation (its bytes are not decoded). */
function bytesEnvelope(doc: common.Document, routePart: Buffer): Buffer {
  const data = doc.data_json.length > 0 ? doc.data_json : NULL;
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
