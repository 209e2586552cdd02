import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { beforeAll, describe, expect, it } from 'vitest';
import { MCP_HEADERS, toolCallBody } from '../../load-tests/lib/mcp.js';
import { askAgain, ok, platform, toolWait } from './client.ts';
import { validCalls } from './valid-calls.ts';

// The tool list as an agent's context pays for it (issue 33): `tools/list` on the wire fits 32 KB, no
// tool takes more than 2 KB, and each description still says what the tool returns (every top-level
// field of `data`, and the OpenAPI operation with the full schema) and what it costs. Every tool's
// structured result conforms to the output schema it declares and to that OpenAPI operation's schema;
// its text is the same document as compact JSON.

const LIST_BUDGET = 32 * 1024;
const TOOL_BUDGET = 2 * 1024;
const MCP_URL = new URL('/mcp', platform.baseUrl);

interface Tool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown>;
}

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');

/** One stateless JSON-RPC exchange, as the wire carries it. */
async function rpc(body: string): Promise<{ raw: string; message: any }> {
  const res = await fetch(MCP_URL, {
    method: 'POST',
    headers: { ...MCP_HEADERS, authorization: `Bearer ${platform.token}` },
    body,
  });
  const raw = await res.text();
  expect(res.status, raw.slice(0, 300)).toBe(200);
  return { raw, message: JSON.parse(raw) };
}

/** A tool call as an agent makes it: a 502 or 503 result asked again after its wait (see `askAgain`). */
function callTool(body: string): Promise<{ raw: string; message: any }> {
  return askAgain(
    () => rpc(body),
    ({ message }) => {
      const result = message.result;
      const said = result?.isError ? JSON.parse(result.content?.[0]?.text ?? '{}') : {};
      return toolWait(said.error, said.retry_after_seconds);
    },
  );
}

let openapi: any;
let listRaw: string;
let tools: Tool[];
let docId: number;
/** Outputs as an MCP client checks them: 2020-12 JSON Schema, strict about unknown keywords. */
const declared = new Ajv2020({ allErrors: true, strict: true });
/** The OpenAPI document's schemas (formats and OpenAPI-only keywords as the contract tests read them). */
const published = new Ajv2020({ allErrors: true, strict: false, validateSchema: false });
addFormats.default(published);

const operations = new Map<string, { path: string; op: any }>();
/** The operation whose full schema a tool's description points at. */
const operationOf = (tool: Tool) => tool.description.match(/\(full schema: OpenAPI (\w+)\)/)?.[1];
/** The description's account of `data`, from "Returns" on. */
const returnsOf = (tool: Tool) => tool.description.slice(tool.description.indexOf('Returns `data`'));

/** A JSON pointer as a URI fragment. */
const pointer = (segments: string[]) =>
  segments.map((s) => `/${encodeURIComponent(s.replace(/~/g, '~0').replace(/\//g, '~1'))}`).join('');
const bodySchema = (path: string) =>
  `openapi.json#${pointer(['paths', path, 'get', 'responses', '200', 'content', 'application/json', 'schema'])}`;

/** The field names at the top of a published `data` schema (of its items for a list, of every variant). */
function topFields(schema: any): string[] {
  const s = schema.$ref ? openapi.components.schemas[schema.$ref.split('/').at(-1)] : schema;
  if (s.anyOf) return s.anyOf.flatMap(topFields);
  if (s.type === 'array') return topFields(s.items);
  return Object.keys(s.properties ?? {});
}

beforeAll(async () => {
  openapi = await (await fetch(`${platform.baseUrl}/v1/openapi.json`)).json();
  published.addSchema(openapi, 'openapi.json');
  for (const [path, item] of Object.entries<any>(openapi.paths))
    operations.set(item.get.operationId, { path, op: item.get });
  docId = (await ok(`/v1/stocks/${platform.symbols.filer}/documents`)).data[0].doc_id;
  const listed = await rpc(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }));
  listRaw = listed.raw;
  tools = listed.message.result.tools;
}, 60_000);

describe("the MCP tool list within an agent's budget", () => {
  it('is at most 32 KB in all and 2 KB a tool, as compact JSON', () => {
    const sizes = tools.map((t) => ({ tool: t.name, bytes: bytes(JSON.stringify(t)) }));
    console.log(
      `tools/list: ${bytes(listRaw)} bytes for ${tools.length} tools (budget ${LIST_BUDGET}, ${TOOL_BUDGET} a tool)\n` +
        sizes.map((s) => `  ${s.tool.padEnd(22)} ${String(s.bytes).padStart(5)}`).join('\n'),
    );
    expect(tools.length).toBe(operations.size - 1);
    expect(bytes(listRaw)).toBeLessThanOrEqual(LIST_BUDGET);
    for (const s of sizes) expect(s.bytes, s.tool).toBeLessThanOrEqual(TOOL_BUDGET);
    // No indentation or spacing anywhere: the message is exactly its compact serialisation.
    expect(listRaw).toBe(JSON.stringify(JSON.parse(listRaw)));
  });

  it('says in each description what the tool costs, and names every field of `data` and the full schema', () => {
    for (const tool of tools) {
      const operation = operationOf(tool);
      expect(operation, tool.name).toBeDefined();
      const { op } = operations.get(operation!) ?? {};
      expect(op, `${tool.name} names ${operation}`).toBeDefined();
      if (tool.name === 'get_usage') expect(tool.description).toMatch(/Free: costs no request unit/);
      else
        expect(tool.description, tool.name).toMatch(
          /Costs 1 request unit per successful call; errors are free/,
        );
      const dataSchema = op.responses['200'].content['application/json'].schema.properties.data;
      const returns = returnsOf(tool);
      const fields = [...new Set(topFields(dataSchema))];
      expect(fields.length, tool.name).toBeGreaterThan(0);
      for (const field of fields)
        expect(returns, `${tool.name}: ${field}`).toMatch(new RegExp(`\\b${field}\\b`));
    }
  });
});

describe('every tool result', () => {
  it('conforms to the output schema the tool declares and to its OpenAPI operation, with the same document as compact text', async () => {
    const calls = validCalls(docId);
    const resultSizes: string[] = [];
    for (const [id, tool] of tools.entries()) {
      const operation = operationOf(tool)!;
      const call = calls[operation];
      expect(call, `a valid call of ${operation}`).toBeDefined();
      const { raw, message } = await callTool(toolCallBody(tool.name, call!.args, id + 2));
      const result = message.result;
      expect(result.isError ?? false, `${tool.name}: ${result.content?.[0]?.text?.slice(0, 300)}`).toBe(
        false,
      );
      const structured = result.structuredContent;
      // The tool named its operation truly: that operation served the result.
      expect(structured.meta.route, tool.name).toBe(operation);

      const validate: ValidateFunction = declared.compile(tool.outputSchema);
      expect(validate(structured), `${tool.name}: ${declared.errorsText(validate.errors)}`).toBe(true);
      // The declared schema is no blank cheque: an error envelope is not a result.
      expect(validate({ error: { code: 'not_found', message: 'no such stock' } }), tool.name).toBe(false);

      const full = published.compile({ $ref: bodySchema(operations.get(operation)!.path) });
      expect(full(structured), `${tool.name}: ${published.errorsText(full.errors)}`).toBe(true);

      expect(result.content).toHaveLength(1);
      expect(result.content[0].type).toBe('text');
      expect(result.content[0].text, tool.name).toBe(JSON.stringify(structured));
      expect(raw, tool.name).toBe(JSON.stringify(message));
      resultSizes.push(`  ${tool.name.padEnd(22)} ${String(bytes(result.content[0].text)).padStart(6)}`);
    }
    console.log(
      `tool results (text bytes, valid calls of test/platform/valid-calls.ts):\n${resultSizes.join('\n')}`,
    );
  }, 120_000);
});
