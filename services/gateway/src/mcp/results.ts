import { type ApiError, errorBody } from '@mdp/errors';

/** The MCP `CallToolResult` shape this server returns. */
export interface ToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/**
 * A 200's envelope: `{data, meta}` as structured content, and the same JSON as text for clients without
 * it: the REST body as sent, compact (no indentation) as every service serialises its documents.
 */
export function dataResult(envelopeJson: string): ToolResult {
  return {
    content: [{ type: 'text', text: envelopeJson }],
    structuredContent: JSON.parse(envelopeJson) as Record<string, unknown>,
  };
}

/**
 * An error is a tool result, not a transport error: the model sees the SPEC error envelope (code,
 * message, the parameter at fault) and, when waiting helps (429, 503), how many seconds to wait.
 */
export function errorResult(err: ApiError): ToolResult {
  const retryAfter = err.headers['Retry-After'];
  const body = {
    ...errorBody(err),
    ...(retryAfter !== undefined ? { retry_after_seconds: Number(retryAfter) } : {}),
  };
  return { content: [{ type: 'text', text: JSON.stringify(body) }], isError: true };
}
