import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { platform } from './client.ts';

// The MCP Inspector, as a subscriber would point it at the platform (`make mcp-inspect`): the real
// Inspector CLI on Node 22 from the npm registry, over Streamable HTTP with the bearer header.

const exec = promisify(execFile);

async function inspect(...args: string[]): Promise<any> {
  const { stdout } = await exec('bash', ['scripts/mcp-inspect.sh', ...args], {
    env: { ...process.env, BASE_URL: platform.baseUrl, TOKEN: platform.token },
    maxBuffer: 16 * 1024 * 1024,
  });
  return JSON.parse(stdout);
}

describe('the MCP Inspector CLI', () => {
  it('lists the tools and calls one', async () => {
    const listed = await inspect('--method', 'tools/list');
    const names = listed.tools.map((t: { name: string }) => t.name);
    expect(names).toContain('get_stock_quote');
    expect(names).toContain('get_usage');
    expect(names).toHaveLength(26);
    const called = await inspect(
      '--method',
      'tools/call',
      '--tool-name',
      'get_stock_quote',
      '--tool-arg',
      `symbol=${platform.symbols.stock}`,
    );
    expect(called.isError ?? false).toBe(false);
    expect(called.structuredContent.data.symbol).toBe(platform.symbols.stock);
  }, 300_000);
});
