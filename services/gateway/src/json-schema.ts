import { ERROR_CODES } from '@mdp/errors';
import { type TSchema, Type } from '@sinclair/typebox';
import { UsageDocument } from './catalogue/account.ts';
import { DOCUMENT_SCHEMAS } from './catalogue/documents/index.ts';
import { CSV } from './catalogue/params.ts';
import { SearchItem } from './catalogue/stocks.ts';

/**
 * The catalogue's schemas as plain JSON Schema, for every document that publishes them: the OpenAPI
 * document refers to named schemas under `#/components/schemas/`; the MCP tools outline them (see
 * mcp/result-shape.ts) and point at the OpenAPI operation. Routes name them with `Type.Ref(id)`.
 */

export const ErrorSchema = Type.Object({
  error: Type.Object({
    code: Type.Unsafe<string>({ type: 'string', enum: ERROR_CODES }),
    message: Type.String({ description: 'Human text; wording may change. Branch on `code`.' }),
    details: Type.Optional(
      Type.Object({ param: Type.Optional(Type.String({ description: 'The parameter at fault' })) }),
    ),
  }),
});

const MetaSchema = Type.Object(
  {
    as_of: Type.String({ format: 'date-time', description: 'When the response was assembled (UTC)' }),
    route: Type.String({ description: 'The operation id that served the request' }),
  },
  { additionalProperties: true, description: 'Extra keys carry paging and windows' },
);

/** Every named schema a route's `data` may refer to, by name. */
export const NAMED_SCHEMAS: Readonly<Record<string, TSchema>> = {
  Meta: MetaSchema,
  SearchItem,
  UsageDocument,
  ...Object.fromEntries(DOCUMENT_SCHEMAS.map((s) => [s.$id!, s])),
};

/** JSON Schema as published: TypeBox's symbols and our private keywords removed. */
export function clean(schema: unknown): unknown {
  return JSON.parse(
    JSON.stringify(schema, (key, value) => (key === CSV || key === '$id' ? undefined : value)),
  );
}

const REF = /"\$ref":"(\w+)"/g;

/** `schema` cleaned, with each `Type.Ref(name)` pointing at `<base><name>`. */
export function withRefs(schema: unknown, base: string): unknown {
  return JSON.parse(JSON.stringify(clean(schema)).replace(REF, (_m, name) => `"$ref":"${base}${name}"`));
}
