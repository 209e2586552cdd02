import type { TSchema } from '@sinclair/typebox';
import type { RouteDef } from '../catalogue/index.ts';
import { CSV } from '../catalogue/params.ts';
import { clean } from '../json-schema.ts';
import { outline, shallowOutputSchema } from './result-shape.ts';

/** A tool as `tools/list` describes it (the MCP `Tool` shape). */
interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: { type: 'object'; [key: string]: unknown };
  outputSchema: { type: 'object'; [key: string]: unknown };
  annotations: { readOnlyHint: true; openWorldHint: false };
}

export interface McpTool {
  definition: ToolDefinition;
  route: RouteDef;
  /** Tool arguments as the REST validator reads a request: path parameters and query strings. */
  toRequest(args: Record<string, unknown>): {
    params: Record<string, unknown>;
    query: Record<string, string | unknown>;
  };
}

const ACRONYMS = new Set(['fii', 'dii', 'iv', 'fpi']);

const words = (operationId: string) => operationId.split(/(?=[A-Z])/).map((w) => w.toLowerCase());

/** `getStockQuote` → `get_stock_quote`. */
const toolNameOf = (route: RouteDef) => route.toolName ?? words(route.operationId).join('_');

/** `getStockQuote` → `Stock quote`; `listIndices` → `List indices`. */
function titleOf(route: RouteDef): string {
  const w = words(route.operationId);
  const shown = (w[0] === 'get' ? w.slice(1) : w).map((x) => (ACRONYMS.has(x) ? x.toUpperCase() : x));
  const text = shown.join(' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

type Schema = TSchema & Record<string, unknown>;

/**
 * One object schema over a route's path and query parameters, exactly as the catalogue bounds them. A
 * comma-separated REST parameter is a JSON array here; a parameter with a default may be left out.
 */
function inputSchema(route: RouteDef): ToolDefinition['inputSchema'] {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const [part, isPath] of [
    [route.params, true],
    [route.query, false],
  ] as const) {
    const needed = new Set(part.required ?? []);
    for (const [name, raw] of Object.entries(part.properties as Record<string, Schema>)) {
      properties[name] = clean(raw);
      if (isPath || (needed.has(name) && !('default' in raw))) required.push(name);
    }
  }
  return {
    type: 'object',
    properties,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
  };
}

/**
 * What the tool does, returns and costs. The result is outlined by field names; its full schema is the
 * OpenAPI operation's, which the server's instructions say where to find.
 */
function description(route: RouteDef): string {
  const fields = outline(route);
  const returns = `Returns ${fields ? `\`data\` ${fields}` : '`data`'} (full schema: OpenAPI ${route.operationId}).`;
  const cost = route.metered
    ? 'Costs 1 request unit per successful call; errors are free.'
    : 'Free: costs no request unit.';
  return [`${route.summary}.`, route.description, returns, cost].filter(Boolean).join(' ');
}

/** A tool argument as the query string would carry it; anything else is left for the validator to refuse. */
function asQueryValue(value: unknown, schema: Schema | undefined): unknown {
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (!Array.isArray(value)) return value;
  // Only a comma-separated parameter takes a list; any other array is refused for what it is.
  const listable = schema?.[CSV] && value.every((v) => typeof v === 'string' || typeof v === 'number');
  return listable ? value.join(',') : JSON.stringify(value);
}

/**
 * The MCP tools, one per data route of the catalogue (the OpenAPI description is not data), each with
 * the route's own bounds: a tool call is validated by the same compiled validator as a REST request.
 */
export function toolsFromCatalogue(routes: readonly RouteDef[]): McpTool[] {
  return routes
    .filter((route) => route.dispatch)
    .map((route) => {
      const pathNames = new Set(Object.keys(route.params.properties));
      const properties = { ...route.query.properties, ...route.params.properties } as Record<string, Schema>;
      const title = titleOf(route);
      return {
        route,
        definition: {
          name: toolNameOf(route),
          title,
          description: description(route),
          inputSchema: inputSchema(route),
          outputSchema: shallowOutputSchema(route),
          annotations: { readOnlyHint: true, openWorldHint: false },
        },
        toRequest(args) {
          const params: Record<string, unknown> = {};
          const query: Record<string, unknown> = {};
          for (const [name, value] of Object.entries(args)) {
            (pathNames.has(name) ? params : query)[name] = asQueryValue(value, properties[name]);
          }
          return { params, query };
        },
      };
    });
}
