import type { TSchema } from '@sinclair/typebox';
import type { RouteDef } from '../catalogue/index.ts';
import { NAMED_SCHEMAS } from '../json-schema.ts';

/**
 * What a tool returns, said in the few hundred bytes an agent's tool list can spare, both derived from
 * the route's own `data` schema: an outline of the field names for the description, and an output
 * schema that only loosens the full one (every 200 the route may answer conforms to it). The full
 * schema stays in the OpenAPI document, under the route's operation id.
 */

type Schema = Record<string, unknown> & {
  $ref?: string;
  type?: string;
  anyOf?: Schema[];
  items?: Schema;
  properties?: Record<string, Schema>;
};

/** Characters of outline a tool may spend; the deepest outline that fits is shown. */
const OUTLINE_CHARS = 300;
const DEEPEST = 3;

const resolve = (s: Schema): Schema => (s.$ref ? (NAMED_SCHEMAS[s.$ref] as Schema) : s);

/** The JSON type(s) a schema allows at its top, or none when it does not say. */
function typeOf(schema: Schema): string | string[] | undefined {
  const s = resolve(schema);
  if (typeof s.type === 'string') return s.type;
  if (!s.anyOf) return undefined;
  const types = s.anyOf.map(typeOf);
  if (types.some((t) => t === undefined)) return undefined;
  const unique = [...new Set(types.flat() as string[])];
  return unique.length === 1 ? unique[0] : unique;
}

/** Field names down to `depth` levels: `{symbol, bars: [{…}]}`; a scalar is just its name. */
function fields(schema: Schema, depth: number): string {
  const s = resolve(schema);
  if (s.anyOf) {
    const members = s.anyOf.filter((m) => m.type !== 'null').map((m) => fields(m, depth));
    return [...new Set(members)].filter(Boolean).join(' | ');
  }
  if (s.type === 'array' && s.items) return `[${fields(s.items, depth)}]`;
  if (s.type !== 'object' || !s.properties) return '';
  if (depth === 0) return '{…}';
  const shown = Object.entries(s.properties).map(([name, child]) => {
    const inner = fields(child, depth - 1);
    return inner ? `${name}: ${inner}` : name;
  });
  return `{${shown.join(', ')}}`;
}

/** The route's `data` as field names, as deep as fits the tool's share of the list. */
export function outline(route: RouteDef): string {
  if (!route.data) return '';
  for (let depth = DEEPEST; depth > 1; depth--) {
    const text = fields(route.data as Schema, depth);
    if (text.length <= OUTLINE_CHARS) return text;
  }
  return fields(route.data as Schema, 1);
}

/** The envelope with each key's top-level type: what every 200 of the route satisfies, and no more. */
export function shallowOutputSchema(route: RouteDef): { type: 'object'; [key: string]: unknown } {
  const top = (schema: TSchema | undefined) => {
    const type = schema && typeOf(schema as Schema);
    return type ? { type } : {};
  };
  return {
    type: 'object',
    properties: { data: top(route.data), meta: top(NAMED_SCHEMAS.Meta) },
    required: ['data', 'meta'],
  };
}
