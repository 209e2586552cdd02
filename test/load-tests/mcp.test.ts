import { describe, expect, it } from 'vitest';
import { classifyToolResponse, toolCallBody } from '../../load-tests/lib/mcp.js';

const toolError = (body: unknown) => ({
  jsonrpc: '2.0',
  id: 1,
  result: { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }] },
});

describe('the load tests’ reading of a tool call', () => {
  it('builds a stateless tools/call request', () => {
    expect(JSON.parse(toolCallBody('get_stock_quote', { symbol: 'ARAVALIHOU' }, 7))).toEqual({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'get_stock_quote', arguments: { symbol: 'ARAVALIHOU' } },
    });
  });

  it('tells data, a burst refusal and anything else apart', () => {
    expect(classifyToolResponse(200, { result: { content: [], structuredContent: {} } })).toEqual({
      kind: 'admitted',
    });
    expect(
      classifyToolResponse(200, toolError({ error: { code: 'rate_limited' }, retry_after_seconds: 12 })),
    ).toEqual({ kind: 'rate_limited', retryAfter: 12 });
    expect(classifyToolResponse(200, toolError({ error: { code: 'quota_exhausted' } }))).toEqual({
      kind: 'other',
      reason: 'quota_exhausted',
    });
    expect(classifyToolResponse(401, { error: { code: 'invalid_token' } })).toEqual({
      kind: 'other',
      reason: 'HTTP 401',
    });
    expect(classifyToolResponse(200, { error: { code: -32602 } })).toEqual({
      kind: 'other',
      reason: 'JSON-RPC -32602',
    });
  });
});
