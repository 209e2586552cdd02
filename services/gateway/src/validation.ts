import { ApiError } from '@mdp/errors';
import type { TObject, TSchema } from '@sinclair/typebox';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { RouteDef, RouteInput } from './catalogue/index.ts';
import { CSV, isPageRange } from './catalogue/params.ts';
import { MALFORMED, MAX_QUERY_PARAMS, type ParsedQuery } from './query-string.ts';

type Schema = TSchema & Record<string, unknown>;

const ajv = new Ajv({ coerceTypes: false, useDefaults: true, allErrors: false, strict: false });
addFormats.default(ajv, { mode: 'full', formats: ['date', 'date-time'] });
ajv.addFormat('page-range', { type: 'string', validate: isPageRange });

const INTEGER = /^-?[0-9]{1,16}$/;

/** Raw string → the JSON type the schema asks for; anything that does not parse stays a string for ajv to refuse. */
function convert(value: string, schema: Schema): unknown {
  if (schema.type === 'integer') return INTEGER.test(value) ? Number(value) : value;
  if (schema.type === 'array' && schema[CSV]) {
    const items = schema.items as Schema;
    return value.split(',').map((item) => convert(item.trim(), items));
  }
  return value;
}

function describeBounds(schema: Schema): string {
  if (schema.type === 'integer') return `an integer from ${schema.minimum} to ${schema.maximum}`;
  if (schema.enum) return `one of: ${(schema.enum as string[]).join(', ')}`;
  if (schema.format === 'date') return 'a real calendar date as YYYY-MM-DD';
  if (schema.format === 'page-range')
    return 'a page range such as 1-8, 12 or 40- (first page not after the last)';
  if (schema.type === 'string')
    return `${schema.minLength ?? 0} to ${schema.maxLength} characters${schema.pattern ? ` matching ${schema.pattern}` : ''}`;
  return 'valid';
}

function messageFor(err: ErrorObject, param: string, schema: Schema | undefined): string {
  switch (err.keyword) {
    case 'required':
      return `missing required parameter \`${param}\``;
    case 'additionalProperties':
      return `unknown parameter \`${param}\``;
    case 'maxItems':
      return `\`${param}\` takes at most ${(err.params as { limit: number }).limit} comma-separated values`;
    case 'minItems':
      return `\`${param}\` must list at least one value`;
    case 'uniqueItems':
      return `\`${param}\` lists the same value twice`;
  }
  if (!schema) return `\`${param}\` is invalid`;
  // An error inside a comma-separated list is about one of its items.
  const itemIndex = err.instancePath.split('/')[2];
  if (itemIndex !== undefined && schema.type === 'array') {
    return `\`${param}\` value ${Number(itemIndex) + 1} must be ${describeBounds(schema.items as Schema)}`;
  }
  return `\`${param}\` must be ${describeBounds(schema)}`;
}

interface CompiledPart {
  properties: Record<string, Schema>;
  validate: ValidateFunction;
  /** The part declares no parameter: none given is valid as it is (known at start-up, not asked of ajv). */
  none: boolean;
}

function compilePart(schema: TObject): CompiledPart {
  const strict = { ...schema, additionalProperties: false };
  const properties = schema.properties as Record<string, Schema>;
  return { properties, validate: ajv.compile(strict), none: Object.keys(properties).length === 0 };
}

function isEmpty(raw: Record<string, unknown>): boolean {
  for (const _ in raw) return false;
  return true;
}

function check(
  part: CompiledPart,
  raw: Record<string, unknown>,
  kind: 'path' | 'query',
): Record<string, unknown> {
  if (part.none && isEmpty(raw)) return {};
  const typed: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (Array.isArray(value)) {
      throw ApiError.invalidParam(
        name,
        `\`${name}\` given more than once; send it once (lists are comma-separated)`,
      );
    }
    const schema = part.properties[name];
    typed[name] = schema && typeof value === 'string' ? convert(value, schema) : value;
  }
  if (part.validate(typed)) return typed;
  const err = part.validate.errors?.[0];
  if (!err) throw ApiError.invalidParam(kind, 'invalid request');
  const missing = err.params as { missingProperty?: string; additionalProperty?: string };
  const param =
    missing.missingProperty ?? missing.additionalProperty ?? err.instancePath.split('/')[1] ?? kind;
  throw ApiError.invalidParam(param, messageFor(err, param, part.properties[param]));
}

export type RouteValidator = (
  rawParams: Record<string, unknown>,
  rawQuery: ParsedQuery,
) => Omit<RouteInput<TObject, TObject>, 'caller'>;

/**
 * Compiles a route's validator once at start-up. Unknown, repeated, malformed, missing or out-of-range
 * parameters are a 400 naming the parameter; nothing is clamped or dropped. Defaults are filled in.
 */
export function compileValidator(route: RouteDef): RouteValidator {
  const params = compilePart(route.params);
  const query = compilePart(route.query);
  return (rawParams, rawQuery) => {
    const malformed = rawQuery[MALFORMED];
    if (malformed !== undefined) {
      throw ApiError.invalidParam(malformed, `\`${malformed}\` is not valid percent-encoding`);
    }
    const names = Object.keys(rawQuery);
    if (names.length > MAX_QUERY_PARAMS) {
      const extra = names.find((n) => !(n in query.properties)) ?? names[0]!;
      throw ApiError.invalidParam(extra, `too many query parameters (${names.length})`);
    }
    const input = {
      params: check(params, rawParams, 'path'),
      query: check(query, rawQuery, 'query'),
    } as Omit<RouteInput<TObject, TObject>, 'caller'>;
    route.check?.({ ...input, caller: null });
    return input;
  };
}
