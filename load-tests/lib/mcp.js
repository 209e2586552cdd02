// The MCP side of the load tests, shared by the k6 scripts and their Node tests (plain ES module, no k6
// or Node API): a stateless tool call over Streamable HTTP, and what its answer means for metering.

export const MCP_HEADERS = {
  'Content-Type': 'application/json',
  Accept: 'application/json, text/event-stream',
  'MCP-Protocol-Version': '2025-06-18',
};

/** The JSON-RPC body of one `tools/call` (the server is stateless: no session, no initialize needed). */
export function toolCallBody(tool, args, id = 1) {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: tool, arguments: args },
  });
}

/**
 * How a tool call ended, as the burst-cap run counts it: `admitted` (data, one unit), `rate_limited`
 * (a tool error with the seconds to wait), or `other` (anything else, with a reason).
 */
export function classifyToolResponse(status, body) {
  if (status !== 200) return { kind: 'other', reason: `HTTP ${status}` };
  const result = body?.result;
  if (!result) return { kind: 'other', reason: body?.error ? `JSON-RPC ${body.error.code}` : 'no result' };
  if (!result.isError) return { kind: 'admitted' };
  let error;
  try {
    error = JSON.parse(result.content[0].text);
  } catch (_) {
    return { kind: 'other', reason: 'unreadable tool error' };
  }
  if (error.error && error.error.code === 'rate_limited')
    return { kind: 'rate_limited', retryAfter: Number(error.retry_after_seconds) };
  return { kind: 'other', reason: error.error ? error.error.code : 'tool error' };
}
