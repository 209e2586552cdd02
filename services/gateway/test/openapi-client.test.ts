import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// What a subscriber does with the committed OpenAPI document: generate types with openapi-typescript and
// call every route through openapi-fetch with only what the route requires. The type checker must accept
// each call (a parameter with a default must not be required) and refuse a wrongly typed one.

const ROOT = new URL('../../../', import.meta.url).pathname;
const doc = JSON.parse(readFileSync(join(ROOT, 'services/gateway/openapi.json'), 'utf8')) as {
  paths: Record<string, { get: { parameters: Param[] } }>;
};
interface Param {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  schema: { type?: string; enum?: unknown[]; items?: { enum?: unknown[] } };
}

let dir: string;

/** A value of the parameter's type, as a literal in TypeScript source. */
const sample = (p: Param): string =>
  p.schema.enum
    ? JSON.stringify(p.schema.enum[0])
    : p.schema.type === 'integer' || p.schema.type === 'number'
      ? '1'
      : p.schema.type === 'array'
        ? `[${p.schema.items?.enum ? JSON.stringify(p.schema.items.enum[0]) : "'ARAVALIHOU'"}]`
        : "'ARAVALIHOU'";

const args = (params: Param[]) => {
  const part = (where: 'path' | 'query') =>
    params
      .filter((p) => p.in === where && p.required)
      .map((p) => `${JSON.stringify(p.name)}: ${sample(p)}`)
      .join(', ');
  const path = part('path');
  const query = part('query');
  return `{ params: { ${path ? `path: { ${path} }, ` : ''}${query ? `query: { ${query} }` : ''} } }`;
};

function diagnostics(file: string): string[] {
  const program = ts.createProgram([file], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    skipLibCheck: true,
    allowImportingTsExtensions: true,
  });
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

beforeAll(async () => {
  mkdirSync(join(ROOT, '.local'), { recursive: true });
  // Inside the repository, so that `openapi-fetch` resolves from its node_modules.
  dir = mkdtempSync(join(ROOT, '.local', 'openapi-client-'));
  writeFileSync(join(dir, 'api.ts'), astToString(await openapiTS(doc as never)));
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a client generated from the OpenAPI document', () => {
  it('calls every route with its required parameters only, and price with just days', () => {
    const calls = Object.entries(doc.paths).map(
      ([path, item]) => `await client.GET(${JSON.stringify(path)}, ${args(item.get.parameters)});`,
    );
    writeFileSync(
      join(dir, 'calls.ts'),
      [
        "import createClient from 'openapi-fetch';",
        "import type { paths } from './api.ts';",
        "const client = createClient<paths>({ baseUrl: 'http://localhost:8080' });",
        ...calls,
        "await client.GET('/v1/stocks/{symbol}/price', { params: { path: { symbol: 'ARAVALIHOU' }, query: { days: 30 } } });",
        "await client.GET('/v1/stocks', { params: { query: { q: 'aravali' } } });",
      ].join('\n'),
    );
    expect(calls.length).toBe(Object.keys(doc.paths).length);
    expect(diagnostics(join(dir, 'calls.ts'))).toEqual([]);
  }, 60_000);

  it('refuses a parameter of the wrong type (the check can fail)', () => {
    writeFileSync(
      join(dir, 'wrong.ts'),
      [
        "import createClient from 'openapi-fetch';",
        "import type { paths } from './api.ts';",
        "const client = createClient<paths>({ baseUrl: 'http://localhost:8080' });",
        "await client.GET('/v1/stocks/{symbol}/price', { params: { path: { symbol: 'ARAVALIHOU' }, query: { days: 'thirty' } } });",
      ].join('\n'),
    );
    expect(diagnostics(join(dir, 'wrong.ts')).length).toBeGreaterThan(0);
  }, 60_000);
});
