import { ERROR_CODES } from '@mdp/errors';
import { type TSchema, Type } from '@sinclair/typebox';
import { OPENAPI_OPERATION_ID, UsageDocument } from './catalogue/account.ts';
import { DOCUMENT_SCHEMAS } from './catalogue/documents/index.ts';
import { catalogue, type RouteDef } from './catalogue/index.ts';
import { CSV } from './catalogue/params.ts';
import { SearchItem } from './catalogue/stocks.ts';

export const API_VERSION = '1.0.0';

/** JSON Schema as OpenAPI shows it: TypeBox's symbols and our private keywords removed. */
function clean(schema: unknown): unknown {
  return JSON.parse(
    JSON.stringify(schema, (key, value) => (key === CSV || key === '$id' ? undefined : value)),
  );
}

function refs(schema: unknown): unknown {
  return JSON.parse(
    JSON.stringify(clean(schema)).replace(/"\$ref":"(\w+)"/g, '"$ref":"#/components/schemas/$1"'),
  );
}

function parameters(route: RouteDef) {
  const out: unknown[] = [];
  for (const [location, object] of [
    ['path', route.params],
    ['query', route.query],
  ] as const) {
    const required = new Set(object.required ?? []);
    for (const [name, raw] of Object.entries(
      object.properties as Record<string, TSchema & Record<string, unknown>>,
    )) {
      const { description, ...schema } = clean(raw) as Record<string, unknown>;
      out.push({
        name,
        in: location,
        required: location === 'path' || required.has(name),
        ...(description ? { description } : {}),
        schema,
        ...(raw[CSV] ? { style: 'form', explode: false } : {}),
      });
    }
  }
  return out;
}

const rateLimitHeaders = {
  'X-RateLimit-Limit': { $ref: '#/components/headers/X-RateLimit-Limit' },
  'X-RateLimit-Remaining': { $ref: '#/components/headers/X-RateLimit-Remaining' },
  'X-RateLimit-Reset': { $ref: '#/components/headers/X-RateLimit-Reset' },
};

function responses(route: RouteDef) {
  const body =
    route.operationId === OPENAPI_OPERATION_ID
      ? { type: 'object', description: 'An OpenAPI 3.1 document' }
      : {
          type: 'object',
          required: ['data', 'meta'],
          properties: {
            data: route.data ? refs(route.data) : {},
            meta: { $ref: '#/components/schemas/Meta' },
          },
        };
  const errorRef = (name: string) => ({ $ref: `#/components/responses/${name}` });
  return {
    '200': {
      description: 'Success',
      ...(route.metered ? { headers: rateLimitHeaders } : {}),
      content: { 'application/json': { schema: body } },
    },
    '400': errorRef('BadRequest'),
    ...(route.authenticated ? { '401': errorRef('Unauthorized') } : {}),
    ...(route.upstream ? { '404': errorRef('NotFound') } : {}),
    ...(route.authenticated ? { '429': errorRef('TooManyRequests') } : {}),
    '500': errorRef('InternalError'),
    ...(route.upstream ? { '502': errorRef('UpstreamUnavailable') } : {}),
    ...(route.authenticated ? { '503': errorRef('ServiceUnavailable') } : {}),
  };
}

const errorResponse = (description: string, headers: Record<string, unknown> = {}) => ({
  description,
  headers,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

const ErrorSchema = Type.Object({
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

/** The OpenAPI 3.1 description of the whole interface, built from the route catalogue. */
export function buildOpenApi(): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of catalogue) {
    paths[route.path] = {
      get: {
        operationId: route.operationId,
        summary: route.summary,
        ...(route.description ? { description: route.description } : {}),
        tags: [route.tag],
        ...(route.authenticated ? {} : { security: [] }),
        'x-request-units': route.metered ? 1 : 0,
        parameters: parameters(route),
        responses: responses(route),
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Indian Stock-Market Data API',
      version: API_VERSION,
      description:
        'Read-only JSON over HTTP for Indian equities, indices, derivatives and market flows, metered per bearer token: a 200 costs one unit, every error is free. Data is informational and not investment advice.',
    },
    servers: [{ url: '{base_url}', variables: { base_url: { default: 'http://localhost:8080' } } }],
    security: [{ bearerAuth: [] }],
    tags: ['Stocks', 'Filings', 'Options', 'Indices', 'Market', 'Account', 'Meta'].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'Personal API token' } },
      schemas: {
        Error: clean(ErrorSchema),
        Meta: clean(MetaSchema),
        SearchItem: clean(SearchItem),
        UsageDocument: clean(UsageDocument),
        ...Object.fromEntries(DOCUMENT_SCHEMAS.map((s) => [s.$id!, refs(s)])),
      },
      headers: {
        'X-RateLimit-Limit': {
          description:
            'Cap of the binding window (daily, or monthly when that leaves less headroom); omitted on unlimited plans',
          schema: { type: 'integer' },
        },
        'X-RateLimit-Remaining': {
          description: 'Requests left in the binding window after this one; omitted on unlimited plans',
          schema: { type: 'integer' },
        },
        'X-RateLimit-Reset': {
          description: 'Unix seconds when the binding window resets',
          schema: { type: 'integer' },
        },
        'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer' } },
      },
      responses: {
        BadRequest: errorResponse(
          '`invalid_request`: a parameter is unknown, malformed or out of range (`details.param` names it)',
        ),
        Unauthorized: errorResponse('`authentication_required` (no token) or `invalid_token`'),
        NotFound: errorResponse('`not_found`: the symbol, index or document does not exist'),
        TooManyRequests: errorResponse('`rate_limited` (burst cap) or `quota_exhausted` (plan quota); free', {
          ...rateLimitHeaders,
          'Retry-After': { $ref: '#/components/headers/Retry-After' },
        }),
        InternalError: errorResponse('`tool_error` (retry once) or `internal_error` (retry with backoff)'),
        UpstreamUnavailable: errorResponse(
          '`upstream_unavailable`: a data dependency is briefly unavailable',
        ),
        ServiceUnavailable: errorResponse('`service_unavailable`: wait Retry-After seconds; not charged', {
          'Retry-After': { $ref: '#/components/headers/Retry-After' },
        }),
      },
    },
  };
}
