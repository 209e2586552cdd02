export declare const MCP_HEADERS: Record<string, string>;
export declare function toolCallBody(tool: string, args: Record<string, unknown>, id?: number): string;
export type ToolOutcome =
  | { kind: 'admitted' }
  | { kind: 'rate_limited'; retryAfter: number }
  | { kind: 'other'; reason: string };
export declare function classifyToolResponse(status: number, body: unknown): ToolOutcome;
