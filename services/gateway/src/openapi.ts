import type { TSchema } from '@sinclair/typebox';
import { OPENAPI_OPERATION_ID } from './catalogue/account.ts';
import { catalogue, type RouteDef } from './catalogue/index.ts';
import { CSV } from './catalogue/params.ts';
import { clean, ErrorSchema, NAMED_SCHEMAS, withRefs } from './json-schema.ts';

export const API_VERSION = '1.0.0';

const TAGS: Record<string, string> = {
  Stocks: 'Listed companies: search, profile, quotes, price history, financials, shareholding, deals',
  Filings: 'Exchange filings: documents, page-range reads and summaries',
  Options: 'F&O: expiries, option chains with implied volatility and Greeks, IV history',
  Indices: 'Index rankings by return and index level history',
  Market: 'Market-wide data: FII/DII flows, valuations, news and FPI sector flows',
  Account: "The token's own plan and usage (free)",
  Meta: 'This interface described (free, no token)',
};

const refs = (schema: unknown) => withRefs(schema, '#/components/schemas/');

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
        // A parameter with a default is optional to the caller, whatever the validator's schema says.
        required: location === 'path' || (required.has(name) && !('default' in raw)),
        ...(description ? { description } : {}),
        schema,
        ...(raw[CSV] ? { style: 'form', explode: false } : {}),
      });
    }
  }
  return out;
}

const header = (name: string) => ({ [name]: { $ref: `#/components/headers/${name}` } });

/** Sent on every response, success or error: the platform's id of the request, and the client's echoed. */
const requestIdHeader = { ...header('Request-Id'), ...header('X-Request-Id') };

/** On a metered 200, and on a free one that says what the caller has used (`RouteDef.usedOf`). */
const rateLimitHeaders = {
  ...header('X-RateLimit-Limit'),
  ...header('X-RateLimit-Remaining'),
  ...header('X-RateLimit-Reset'),
  ...header('RateLimit-Policy'),
  ...header('RateLimit'),
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
      headers: {
        ...requestIdHeader,
        ...(route.metered || route.usedOf ? rateLimitHeaders : {}),
      },
      content: { 'application/json': { schema: body } },
    },
    '400': errorRef('BadRequest'),
    ...(route.authenticated ? { '401': errorRef('Unauthorized') } : {}),
    ...(route.upstream ? { '404': errorRef('NotFound') } : {}),
    '405': errorRef('MethodNotAllowed'),
    ...(route.authenticated ? { '429': errorRef('TooManyRequests') } : {}),
    '500': errorRef('InternalError'),
    ...(route.upstream ? { '502': errorRef('UpstreamUnavailable') } : {}),
    ...(route.authenticated ? { '503': errorRef('ServiceUnavailable') } : {}),
  };
}

const errorResponse = (description: string, headers: Record<string, unknown> = {}) => ({
  description,
  headers: { ...requestIdHeader, ...headers },
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

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
      contact: { name: 'API support', email: 'api-support@example.com' },
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      description:
        'Read-only JSON over HTTP for Indian equities, indices, derivatives and market flows, metered per bearer token: a 200 costs one unit, every error is free. Data is informational and not investment advice.',
    },
    servers: [{ url: '{base_url}', variables: { base_url: { default: 'http://localhost:8080' } } }],
    security: [{ bearerAuth: [] }],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    paths,
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'Personal API token' } },
      schemas: {
        Error: clean(ErrorSchema),
        ...Object.fromEntries(Object.entries(NAMED_SCHEMAS).map(([name, s]) => [name, refs(s)])),
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
        'RateLimit-Policy': {
          description:
            'IETF rate-limit draft: every policy of the plan as a Structured Field list of quota `q` over a window of `w` seconds, e.g. `"daily";q=50;w=86400, "burst";q=60;w=60` (the monthly window is the current IST month)',
          schema: { type: 'string' },
        },
        RateLimit: {
          description:
            'IETF rate-limit draft: the binding policy with what remains (`r`) and seconds until it resets (`t`), e.g. `"daily";r=48;t=23400`; the same window and figure as X-RateLimit-Remaining, `"burst";r=0;t=…` on a burst refusal',
          schema: { type: 'string' },
        },
        'Request-Id': {
          description:
            "The platform's own id of this request, new for every request whatever the client sends (a UUIDv7). Quote it when reporting a problem: it keys the request's charge or refund in the usage ledger.",
          schema: { type: 'string', format: 'uuid' },
        },
        'X-Request-Id': {
          description:
            "The client's own X-Request-Id echoed when it is 8-64 characters of A-Z, a-z, 0-9, dot, underscore or hyphen; otherwise the same value as Request-Id. A correlation id only, logged and traced beside Request-Id: it never decides what is charged, and two requests sending the same one are two requests.",
          schema: { type: 'string' },
        },
        'WWW-Authenticate': {
          description: 'The Bearer scheme, with `error="invalid_token"` when a token was given but refused',
          schema: { type: 'string' },
        },
        Allow: { description: 'The methods the path accepts: `GET, OPTIONS`', schema: { type: 'string' } },
      },
      responses: {
        BadRequest: errorResponse(
          '`invalid_request`: a parameter is unknown, malformed or out of range (`details.param` names it)',
        ),
        Unauthorized: errorResponse('`authentication_required` (no token) or `invalid_token`', {
          ...header('WWW-Authenticate'),
        }),
        MethodNotAllowed: errorResponse(
          '`method_not_allowed`: the path accepts GET and OPTIONS only (any other method gets this)',
          { ...header('Allow') },
        ),
        NotFound: errorResponse('`not_found`: the symbol, index or document does not exist'),
        TooManyRequests: errorResponse(
          '`rate_limited` (burst cap, or too many refused tokens from the address) or `quota_exhausted` (plan quota); free',
          {
            ...rateLimitHeaders,
            'Retry-After': { $ref: '#/components/headers/Retry-After' },
          },
        ),
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
