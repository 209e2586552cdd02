import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyToolResponse, MCP_HEADERS, toolCallBody } from '../../load-tests/lib/mcp.js';
import { askAgain, getAs, ok, platform, toolWait } from './client.ts';
import { validCalls } from './valid-calls.ts';

// The companion tool server (SPEC 1, 5.3, 8.1) as an MCP client sees it: the SDK's own Client over
// Streamable HTTP against the real platform, on the same tokens, datasets and quota as REST.

const MCP_URL = new URL('/mcp', platform.baseUrl);
const { stock, filer } = platform.symbols;

interface ToolOutcome {
  isError: boolean;
  data?: any;
  meta?: any;
  error?: { code: string; message: string; details?: { param?: string } };
  retryAfter?: number;
}

const clients: Client[] = [];

async function connect(token: string): Promise<Client> {
  const client = new Client({ name: 'mdp-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(MCP_URL, {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  clients.push(client);
  return client;
}

/** A tool call as an agent makes it: a 502 or 503 result asked again after its wait (see `askAgain`). */
function callTool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolOutcome> {
  return askAgain(
    () => callOnce(client, name, args),
    (o) => toolWait(o.error, o.retryAfter),
  );
}

async function callOnce(client: Client, name: string, args: Record<string, unknown>): Promise<ToolOutcome> {
  const result = (await client.callTool({ name, arguments: args })) as {
    isError?: boolean;
    structuredContent?: { data: unknown; meta: unknown };
    content: { type: string; text: string }[];
  };
  if (result.isError) {
    const body = JSON.parse(result.content[0]!.text);
    return { isError: true, error: body.error, retryAfter: body.retry_after_seconds };
  }
  // The text rendering is the same document as the structured content.
  expect(JSON.parse(result.content[0]!.text)).toEqual(result.structuredContent);
  return { isError: false, data: result.structuredContent!.data, meta: result.structuredContent!.meta };
}

async function usage(client: Client) {
  const u = await callTool(client, 'get_usage');
  expect(u.isError).toBe(false);
  return u.data as {
    day: { used: number; remaining: number | null; by_interface: { rest: number; mcp: number } };
    month: { used: number; by_interface: { rest: number; mcp: number } };
  };
}

let openapi: any;
let listed: Awaited<ReturnType<Client['listTools']>>['tools'];
let docId: number;

/** The valid calls by tool name (a tool is named by its operation id in snake_case, but for get_usage). */
const toolCalls = () =>
  Object.fromEntries(
    Object.entries(validCalls(docId)).map(([op, call]) => [
      op === 'getMyUsage' ? 'get_usage' : snake(op),
      call,
    ]),
  );

beforeAll(async () => {
  openapi = await (await fetch(`${platform.baseUrl}/v1/openapi.json`)).json();
  const docs = await ok(`/v1/stocks/${filer}/documents`);
  docId = docs.data[0].doc_id;
  listed = (await (await connect(platform.token)).listTools()).tools;
}, 60_000);
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
});

/** An out-of-bounds value for a tool's first parameter, read off its own input schema. */
function invalidArgs(tool: (typeof listed)[number]): { args: Record<string, unknown>; param: string } {
  const [name, schema] = Object.entries(tool.inputSchema.properties ?? {})[0] ?? [];
  if (!name) return { args: { unexpected: 1 }, param: 'unexpected' };
  const s = schema as any;
  const wrong =
    s.type === 'integer'
      ? s.maximum + 1
      : s.enum
        ? 'no-such-value'
        : s.type === 'array'
          ? Array.from({ length: (s.maxItems ?? 1) + 1 }, (_, i) => `X${i}`)
          : s.format === 'date'
            ? '2025-02-30'
            : 'x'.repeat((s.maxLength ?? 0) + 1);
  return { args: { [name]: wrong }, param: name };
}

describe('the MCP tool server', () => {
  it('lists one read-only tool per data route, with schemas from the route catalogue', () => {
    const operations = Object.values<any>(openapi.paths)
      .map((p) => p.get)
      .filter((op) => op.operationId !== 'getOpenApi');
    expect(listed.map((t) => t.name).sort()).toEqual(Object.keys(toolCalls()).sort());
    expect(listed).toHaveLength(operations.length);
    for (const tool of listed) {
      expect(tool.name).toMatch(/^[a-z]+(_[a-z]+)*$/);
      expect(tool.title, tool.name).toBeTruthy();
      expect(tool.description!.length, tool.name).toBeGreaterThan(40);
      expect(tool.annotations).toMatchObject({ readOnlyHint: true });
      expect(tool.outputSchema).toMatchObject({ type: 'object', required: ['data', 'meta'] });
    }
    // The same bounds as REST: each tool's parameters are its operation's, schema for schema.
    for (const op of operations) {
      const tool = listed.find(
        (t) => t.name === (op.operationId === 'getMyUsage' ? 'get_usage' : snake(op.operationId)),
      )!;
      expect(Object.keys(tool.inputSchema.properties ?? {}).sort(), op.operationId).toEqual(
        op.parameters.map((p: any) => p.name).sort(),
      );
      for (const p of op.parameters) {
        const { description: _d, ...restSchema } = p.schema;
        const { description: _t, ...toolSchema } = (tool.inputSchema.properties as any)[p.name];
        expect(toolSchema, `${op.operationId} ${p.name}`).toEqual(restSchema);
      }
    }
    const search = listed.find((t) => t.name === 'search_stocks')!;
    expect(search.inputSchema.required).toEqual(['q']);
    expect((search.inputSchema.properties as any).limit).toMatchObject({
      minimum: 1,
      maximum: 50,
      default: 10,
    });
  });

  it('answers every tool with the REST document, one unit per data call, none for get_usage', async () => {
    const token = platform.spare.platform[0]!;
    const client = await connect(token);
    const calls = toolCalls();
    for (const [name, { args, path }] of Object.entries(calls)) {
      const outcome = await callTool(client, name, args);
      expect(outcome.isError, `${name}: ${JSON.stringify(outcome.error)}`).toBe(false);
      const viaRest = await ok(path);
      expect(outcome.meta.route, name).toBe(viaRest.meta.route);
      if (name !== 'get_usage') expect(outcome.data, name).toEqual(viaRest.data);
    }
    const metered = Object.keys(calls).length - 1;
    const used = await usage(client);
    expect(used.day.used).toBe(metered);
    expect(used.day.by_interface).toEqual({ rest: 0, mcp: metered });
    expect(used.month.by_interface).toEqual({ rest: 0, mcp: metered });
    // REST reports the same usage of the token.
    expect((await getAs(token, '/v1/me/usage')).body.data.day).toMatchObject({
      used: metered,
      by_interface: { rest: 0, mcp: metered },
    });
  }, 120_000);

  it('refuses an invalid input of every tool as a tool error naming the parameter, and charges nothing', async () => {
    const token = platform.spare.platform[1]!;
    const client = await connect(token);
    for (const tool of listed) {
      const { args, param } = invalidArgs(tool);
      const outcome = await callTool(client, tool.name, { ...toolCalls()[tool.name]!.args, ...args });
      expect(outcome.isError, `${tool.name} with ${JSON.stringify(args).slice(0, 80)}`).toBe(true);
      expect(outcome.error!.code, tool.name).toBe('invalid_request');
      expect(outcome.error!.details?.param, tool.name).toBe(param);
    }
    const missing = await callTool(client, 'get_stock_quote', { symbol: 'NOSUCHCO' });
    expect(missing).toMatchObject({ isError: true, error: { code: 'not_found' } });
    const unknownArg = await callTool(client, 'get_stock_quote', { symbol: stock, colour: 'red' });
    expect(unknownArg).toMatchObject({
      isError: true,
      error: { code: 'invalid_request', details: { param: 'colour' } },
    });
    expect((await usage(client)).day).toMatchObject({ used: 0, by_interface: { rest: 0, mcp: 0 } });
  }, 120_000);

  it('shares the daily quota with REST: 30 REST 200s, then 25 tool calls on 50 a day give 20 results and 5 quota_exhausted', async () => {
    const token = platform.spare.free[0]!;
    for (let i = 0; i < 30; i++) expect((await getAs(token, `/v1/stocks/${stock}/quote`)).status).toBe(200);
    const client = await connect(token);
    const outcomes = [];
    for (let i = 0; i < 25; i++) outcomes.push(await callTool(client, 'get_stock_quote', { symbol: stock }));
    expect(outcomes.filter((o) => !o.isError)).toHaveLength(20);
    const refused = outcomes.filter((o) => o.isError);
    expect(refused).toHaveLength(5);
    for (const o of refused) {
      expect(o.error!.code).toBe('quota_exhausted');
      // Seconds until the IST day resets.
      expect(o.retryAfter).toBeGreaterThan(0);
      expect(o.retryAfter).toBeLessThanOrEqual(86_400);
    }
    expect(outcomes.slice(0, 20).every((o) => !o.isError)).toBe(true);
    const used = await usage(client);
    expect(used.day).toMatchObject({ used: 50, remaining: 0, by_interface: { rest: 30, mcp: 20 } });
    // And REST sees the quota gone too.
    expect((await getAs(token, `/v1/stocks/${stock}/quote`)).body.error.code).toBe('quota_exhausted');
  }, 120_000);

  it('counts both interfaces against the burst cap; initialize, tools/list and ping are not admitted', async () => {
    const token = platform.spare.burst10[0]!;
    const client = await connect(token);
    // More protocol requests than the burst cap allows metered ones.
    for (let i = 0; i < 4; i++) await client.listTools();
    for (let i = 0; i < 12; i++) await client.ping();
    for (let i = 0; i < 5; i++) expect((await getAs(token, `/v1/stocks/${stock}/quote`)).status).toBe(200);
    for (let i = 0; i < 5; i++)
      expect((await callTool(client, 'get_stock_quote', { symbol: stock })).isError).toBe(false);
    const tool = await callTool(client, 'get_stock_quote', { symbol: stock });
    expect(tool).toMatchObject({ isError: true, error: { code: 'rate_limited' } });
    expect(tool.retryAfter).toBeGreaterThan(0);
    expect(tool.retryAfter).toBeLessThanOrEqual(60);
    const viaRest = await getAs(token, `/v1/stocks/${stock}/quote`);
    expect(viaRest.status).toBe(429);
    expect(viaRest.body.error.code).toBe('rate_limited');
    expect((await usage(client)).day.by_interface).toEqual({ rest: 5, mcp: 5 });
  }, 60_000);
});

describe('the /mcp endpoint over HTTP', () => {
  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '1' } },
  };
  const post = (headers: Record<string, string>, body: unknown = initialize) =>
    fetch(MCP_URL, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify(body),
    });

  it('refuses a missing or bad token with 401 and WWW-Authenticate before reading any message', async () => {
    const none = await post({});
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(((await none.json()) as any).error.code).toBe('authentication_required');
    const bad = await post({ authorization: 'Bearer mdp_not_a_real_token' });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toMatch(/^Bearer .*error="invalid_token"/);
    // Not even a malformed message, or a body that is not JSON, is looked at first.
    const garbage = await post({}, { hello: 'world' });
    expect(garbage.status).toBe(401);
    const text = await fetch(MCP_URL, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'hello',
    });
    expect(text.status).toBe(401);
  });

  it('answers initialize with JSON, and GET (no server stream) with 405', async () => {
    const res = await post({ authorization: `Bearer ${platform.token}` });
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body.result.serverInfo.name).toBe('mdp-market-data');
    expect(body.result.capabilities.tools).toBeDefined();
    expect(res.headers.get('mcp-session-id')).toBeNull();
    const get = await fetch(MCP_URL, { headers: { authorization: `Bearer ${platform.token}` } });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });

  it('allows a browser client across origins to POST', async () => {
    const res = await fetch(MCP_URL, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://agent.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type, mcp-protocol-version',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-methods')).toContain('POST');
    expect(res.headers.get('access-control-allow-headers')).toMatch(/Mcp-Protocol-Version/i);
    // REST stays GET-only.
    const restPost = await fetch(`${platform.baseUrl}/v1/stocks`, { method: 'POST' });
    expect(restPost.status).toBe(405);
  });

  it('counts tool calls and admissions by interface in /metrics', async () => {
    const metrics = await (await fetch(`${platform.gatewayOpsUrl}/metrics`)).text();
    /**
     * The samples of `name` whose labels include all of `labels`, summed (admissions are also by ledger
     * shard); undefined when there is none.
     */
    const sample = (name: string, labels: Record<string, string>) => {
      const lines = metrics
        .split('\n')
        .filter(
          (l) =>
            l.startsWith(`${name}{`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)),
        );
      return lines.length > 0 ? lines.reduce((sum, l) => sum + Number(l.split(' ').at(-1)), 0) : undefined;
    };
    expect(
      sample('gateway_mcp_tool_calls_total', { tool: 'get_stock_quote', outcome: 'ok' }),
    ).toBeGreaterThan(0);
    expect(
      sample('gateway_mcp_tool_calls_total', { tool: 'get_stock_quote', outcome: 'quota_exhausted' }),
    ).toBeGreaterThan(0);
    expect(sample('gateway_admissions_total', { decision: 'admitted', interface: 'mcp' })).toBeGreaterThan(0);
    expect(sample('gateway_admissions_total', { decision: 'admitted', interface: 'rest' })).toBeGreaterThan(
      0,
    );
    expect(
      sample('gateway_admissions_total', { decision: 'rate_limited', interface: 'mcp' }),
    ).toBeGreaterThan(0);
  });
});

function snake(operationId: string): string {
  return operationId.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

// The Node-driven twin of `k6 run -e INTERFACE=mixed load-tests/burst-cap.js`: the same requests (REST
// GETs and stateless tool calls, classified by the script's own lib/mcp.js), concurrently, on three
// tokens of a 10-a-minute plan.
describe('the burst cap under concurrent mixed REST and MCP load', () => {
  it('admits exactly the cap per token across both interfaces and refuses the rest as rate_limited', async () => {
    const tokens = platform.spare.burst10.slice(1, 4);
    const PER_TOKEN = 40;
    const one = async (token: string, i: number) => {
      const auth = { authorization: `Bearer ${token}` };
      if (i % 2 === 0) {
        const res = await fetch(`${platform.baseUrl}/v1/stocks/${stock}/quote`, { headers: auth });
        const body = (await res.json()) as any;
        if (res.status === 200) return { via: 'rest', kind: 'admitted' } as const;
        if (res.status === 429 && body.error.code === 'rate_limited')
          return {
            via: 'rest',
            kind: 'rate_limited',
            retryAfter: Number(res.headers.get('retry-after')),
          } as const;
        return { via: 'rest', kind: 'other', reason: `HTTP ${res.status}` } as const;
      }
      const res = await fetch(MCP_URL, {
        method: 'POST',
        headers: { ...MCP_HEADERS, ...auth },
        body: toolCallBody('get_stock_quote', { symbol: stock }, i),
      });
      return { via: 'mcp', ...classifyToolResponse(res.status, await res.json()) };
    };
    const outcomes = await Promise.all(
      tokens.map((token) => Promise.all(Array.from({ length: PER_TOKEN }, (_, i) => one(token, i)))),
    );
    for (const [t, perToken] of outcomes.entries()) {
      expect(
        perToken.filter((o) => o.kind === 'other'),
        `token ${t}`,
      ).toEqual([]);
      const admitted = perToken.filter((o) => o.kind === 'admitted');
      expect(admitted, `token ${t}`).toHaveLength(10);
      const refused = perToken.filter((o) => o.kind === 'rate_limited');
      expect(refused).toHaveLength(PER_TOKEN - 10);
      for (const r of refused) expect((r as { retryAfter: number }).retryAfter).toBeGreaterThanOrEqual(1);
      // The usage document agrees, by interface.
      const { body } = await getAs(tokens[t]!, '/v1/me/usage');
      expect(body.data.day.by_interface).toEqual({
        rest: admitted.filter((o) => o.via === 'rest').length,
        mcp: admitted.filter((o) => o.via === 'mcp').length,
      });
    }
  }, 60_000);
});
