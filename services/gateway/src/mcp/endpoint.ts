import type { IncomingHttpHeaders } from 'node:http';
import { Counter, context, type Registry, type Span, SpanKind, type Tracer, trace } from '@mdp/telemetry';
import { newRequestId } from '@mdp/usage';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Authenticator, Principal } from '../authenticator.ts';
import type { RouteDef } from '../catalogue/index.ts';
import { bodyText } from '../envelope.ts';
import { API_VERSION } from '../openapi.ts';
import type { ParsedQuery } from '../query-string.ts';
import { asApiError, type RouteCall } from '../route-call.ts';
import type { RouteValidator } from '../validation.ts';
import { dataResult, errorResult, type ToolResult } from './results.ts';
import type { McpTool } from './tools.ts';

const MCP_PATH = '/mcp';

const INSTRUCTIONS =
  "Indian stock-market data: search about 8,200 NSE/BSE stocks, then read quotes, price history, financials, shareholding, deals, filings, option chains with IV and Greeks, index rankings and FII/DII flows. Every data tool costs one request unit of the token's quota when it returns data (errors are free); get_usage is free and tells what is left. Use search_stocks to find a symbol first; for several quotes use get_quotes (one unit for up to 20 symbols). A result is the REST document as compact JSON: `data`, and `meta` with paging keys (`next_cursor`, `has_more`) where a route pages. Each tool's description outlines `data` by field names (`{…}` is an object whose fields are not spelled out); the full schema of every result is in the OpenAPI document (GET /v1/openapi.json, free, no token) under the operation id the tool names.";

/** Headers a browser-based MCP client sends (and reads) across origins. */
const CORS_PREFLIGHT = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'POST, GET, DELETE, OPTIONS',
  'access-control-allow-headers':
    'Authorization, Content-Type, Accept, Mcp-Protocol-Version, Mcp-Session-Id, Last-Event-ID, X-Request-Id',
  'access-control-max-age': '600',
};

export interface McpDeps {
  tools: McpTool[];
  validators: ReadonlyMap<RouteDef, RouteValidator>;
  call: RouteCall;
  authenticator: Authenticator;
  tracer: Tracer;
  registry: Registry;
}

export const isMcpPath = (url: string) => url === MCP_PATH || url.startsWith(`${MCP_PATH}?`);

/** Answers a CORS preflight of the tool server (the REST preflight allows GET only). */
export function mcpPreflight(reply: FastifyReply): void {
  reply.code(204).headers(CORS_PREFLIGHT).header('content-length', '0').send();
}

/** Hop-by-hop and body framing headers: the body is handed over already parsed. */
const NOT_FORWARDED = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive']);

function webHeaders(headers: IncomingHttpHeaders): Headers {
  const out = new Headers();
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || NOT_FORWARDED.has(name)) continue;
    for (const v of Array.isArray(value) ? value : [value]) out.append(name, v);
  }
  return out;
}

/**
 * The companion tool server: MCP over Streamable HTTP at `/mcp`, stateless (a new protocol server per
 * HTTP request, no session), so any gateway replica answers any call. The bearer token is checked
 * before any MCP message is read; each tool call is validated by its route's REST validator and runs
 * through the same metering path as a REST request.
 */
export function registerMcp(app: FastifyInstance, deps: McpDeps): void {
  const { tools, validators, call, authenticator, tracer } = deps;
  const byName = new Map(tools.map((t) => [t.definition.name, t]));
  const callers = new WeakMap<FastifyRequest, Principal>();
  const definitions = tools.map((t) => t.definition);
  const calls = new Counter({
    name: 'gateway_mcp_tool_calls_total',
    help: 'MCP tool calls by tool and outcome (ok, or the SPEC error code)',
    labelNames: ['tool', 'outcome'] as const,
    registers: [deps.registry],
  });

  async function callTool(
    caller: Principal,
    req: FastifyRequest,
    name: string,
    args: Record<string, unknown>,
  ): Promise<ToolResult> {
    const tool = byName.get(name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `unknown tool ${name}`);
    const requestId = newRequestId();
    const parent = req.span ? trace.setSpan(context.active(), req.span) : context.active();
    const span: Span = tracer.startSpan(
      `mcp tools/call ${name}`,
      { kind: SpanKind.INTERNAL, attributes: { 'mcp.tool': name, 'mdp.request_id': requestId } },
      parent,
    );
    try {
      const { params, query } = tool.toRequest(args);
      const input = { ...validators.get(tool.route)!(params, query as ParsedQuery), caller };
      const { body } = await context.with(trace.setSpan(parent, span), () =>
        call(tool.route, input, { requestId, via: 'mcp', span }),
      );
      calls.inc({ tool: name, outcome: 'ok' });
      return dataResult(bodyText(body));
    } catch (err) {
      const apiError = asApiError(err);
      if (apiError.status === 500)
        req.log.error({ err: apiError.cause ?? err, tool: name }, 'tool call failed');
      else if (apiError.status > 500) {
        const cause = apiError.cause instanceof Error ? apiError.cause.message : undefined;
        req.log.warn({ code: apiError.code, cause, tool: name }, 'tool call failed: dependency unavailable');
      }
      span.setAttribute('mdp.error_code', apiError.code);
      calls.inc({ tool: name, outcome: apiError.code });
      return errorResult(apiError);
    } finally {
      span.end();
    }
  }

  function protocolServer(caller: Principal, req: FastifyRequest): Server {
    const server = new Server(
      { name: 'mdp-market-data', title: 'Indian stock-market data', version: API_VERSION },
      { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS },
    );
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: definitions }));
    server.setRequestHandler(CallToolRequestSchema, (request) =>
      callTool(caller, req, request.params.name, request.params.arguments ?? {}),
    );
    return server;
  }

  app.route({
    method: ['POST', 'GET', 'DELETE', 'PUT', 'PATCH'],
    url: MCP_PATH,
    config: { operationId: 'mcp' },
    // Who is asking comes first, before the body is even parsed: without a valid token no MCP message
    // is read.
    onRequest: async (req) => {
      callers.set(req, await authenticator.authenticate(req.headers.authorization, req.ip));
    },
    handler: async (req, reply) => {
      const caller = callers.get(req)!;
      if (req.method !== 'POST') {
        // Stateless: no server-initiated stream to GET, no session to DELETE (as the transport spec allows).
        return reply
          .code(405)
          .header('allow', 'POST')
          .type('application/json; charset=utf-8')
          .send({
            jsonrpc: '2.0',
            error: { code: -32000, message: 'Method not allowed: use POST' },
            id: null,
          });
      }
      const server = protocolServer(caller, req);
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      try {
        await server.connect(transport);
        const request = new Request(`http://gateway${req.url}`, {
          method: 'POST',
          headers: webHeaders(req.headers),
        });
        const response = await transport.handleRequest(request, { parsedBody: req.body });
        response.headers.forEach((value, name) => {
          reply.header(name, value);
        });
        const text = await response.text();
        return reply.code(response.status).header('cache-control', 'no-store').send(text);
      } finally {
        await server.close();
      }
    },
  });
}
