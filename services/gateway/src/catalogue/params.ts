import { type SchemaOptions, type TSchema, type TUnsafe, Type } from '@sinclair/typebox';

/**
 * Parameter schemas. Each is plain JSON Schema, so the same object validates the request, types the
 * handler input and describes the parameter in the OpenAPI document.
 */

/** Marks an array parameter sent as one comma-separated value (OpenAPI `style: form, explode: false`). */
export const CSV = 'x-csv';

/** A string parameter restricted to a closed set of values. */
export function oneOf<const T extends readonly string[]>(
  values: T,
  options: SchemaOptions = {},
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

export function integer(minimum: number, maximum: number, options: SchemaOptions = {}) {
  return Type.Integer({ minimum, maximum, ...options });
}

/** A comma-separated list: at least one item, no duplicates, at most `maxItems`. */
export function csv<T extends TSchema>(items: T, maxItems: number, options: SchemaOptions = {}) {
  return Type.Array(items, { minItems: 1, maxItems, uniqueItems: true, [CSV]: true, ...options });
}

/** A real calendar date, YYYY-MM-DD (2025-02-30 is refused). */
export function date(options: SchemaOptions = {}) {
  return Type.String({ format: 'date', ...options });
}

/** NSE/BSE symbols and codes: letters, digits and `& . _ -` (`M&M` travels as `M%26M`). */
const SYMBOL_PATTERN = '^[A-Za-z0-9&._-]+$';

export function symbol(description = 'Stock symbol (NSE symbol or BSE code); percent-encode `&` as `%26`.') {
  return Type.String({ minLength: 1, maxLength: 64, pattern: SYMBOL_PATTERN, description });
}

/** Free text: bounded, and no control characters. */
export function text(maxLength: number, options: SchemaOptions = {}) {
  return Type.String({ minLength: 1, maxLength, pattern: '^[^\\u0000-\\u001f\\u007f]+$', ...options });
}

/** A database id: a positive 32-bit integer. */
export function id(options: SchemaOptions = {}) {
  return Type.Integer({ minimum: 1, maximum: 2_147_483_647, ...options });
}

/** A 1-based inclusive page range: `1-8`, `12` or `40-` (to the end). */
export function pageRange(options: SchemaOptions = {}) {
  return Type.String({
    pattern: '^[1-9][0-9]{0,5}(-([1-9][0-9]{0,5})?)?$',
    format: 'page-range',
    ...options,
  });
}

export interface PageRange {
  first: number;
  last?: number;
}

/** Parses a value already valid under `pageRange()`. */
export function parsePageRange(value: string): PageRange {
  const [first, last] = value.split('-');
  if (last === undefined) return { first: Number(first), last: Number(first) };
  return last === '' ? { first: Number(first) } : { first: Number(first), last: Number(last) };
}

/** The custom `page-range` format: first page not after the last. */
export function isPageRange(value: string): boolean {
  const range = parsePageRange(value);
  return range.last === undefined || range.first <= range.last;
}
