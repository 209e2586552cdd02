import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CSV_COMMANDS, csvLines, main, PRICE_CSV_COLUMNS } from '../src/command-line.ts';
import { SCHEMA_FIELDS } from '../src/generated/fields.ts';
import type { components } from '../src/generated/openapi.ts';

// The `mdp` command line's CSV against a loopback server that answers as the price route does: the
// columns are every field the route serves (from the OpenAPI document), for every command with `--csv`.

type PriceBar = components['schemas']['PriceBar'];

// Typecheck fails when the generated columns leave out a field of the generated type.
const everyField: Exclude<keyof PriceBar, (typeof PRICE_CSV_COLUMNS)[number]> extends never ? true : false =
  true;

const openapi = JSON.parse(
  readFileSync(new URL('../../../services/gateway/openapi.json', import.meta.url), 'utf8'),
) as { components: { schemas: Record<string, { properties: Record<string, unknown> }> } };

/** Bars as the route serves them (every field, a null delivery % among them), oldest first. */
const BARS: PriceBar[] = [
  { date: '2026-03-11', open: 100, high: 104.5, low: 99, close: 103, volume: 12_000, delivery_pct: 41.25 },
  { date: '2026-03-12', open: 103, high: 105, low: 101.5, close: 102, volume: 9_500, delivery_pct: null },
  { date: '2026-03-13', open: 102, high: 102, low: 97.05, close: 98.1, volume: 20_100, delivery_pct: 55 },
];

let server: Server;
let baseUrl: string;

function answer(req: IncomingMessage, res: ServerResponse) {
  const url = new URL(req.url!, 'http://x');
  res.writeHead(url.pathname === '/v1/stocks/ARAVALIHOU/price' ? 200 : 404, {
    'content-type': 'application/json',
    'request-id': 'req-1',
  });
  res.end(
    JSON.stringify({
      data: BARS,
      meta: {
        as_of: '2026-03-14T00:00:00Z',
        route: 'getPriceHistory',
        window: { from: '2026-02-12', to: '2026-03-13', days: 30, interval: 'daily' },
        has_more: false,
        next_cursor: null,
      },
    }),
  );
}

beforeAll(async () => {
  server = createServer(answer);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

async function run(...argv: string[]): Promise<{ code: number; lines: string[] }> {
  const lines: string[] = [];
  const code = await main(argv, { MDP_TOKEN: 'mdp_test', MDP_BASE_URL: baseUrl }, (l) => lines.push(l));
  return { code, lines };
}

describe('mdp --csv', () => {
  it('every command that offers --csv is listed with the schema of its rows', async () => {
    const help = (await run('--help')).lines.join('\n');
    const withCsv = help
      .split('\n')
      .filter((l) => l.includes('[--csv]'))
      .map((l) => l.trim().split(' ')[0]);
    expect(withCsv).toEqual(Object.keys(CSV_COMMANDS));
    for (const schema of Object.values(CSV_COMMANDS))
      expect(SCHEMA_FIELDS[schema]).toEqual(Object.keys(openapi.components.schemas[schema]!.properties));
    expect(everyField).toBe(true);
  });

  it('price: the columns are the keys of the data the route serves, delivery_pct included', async () => {
    const { code, lines } = await run('price', 'ARAVALIHOU', '--days', '30', '--csv');
    expect(code).toBe(0);
    expect(lines[0]!.split(',')).toEqual(Object.keys(BARS[0]!));
    expect(lines[0]!.split(',')).toEqual([...PRICE_CSV_COLUMNS]);
    expect(lines[0]).toContain('delivery_pct');
    expect(lines.slice(1)).toEqual([
      '2026-03-11,100,104.5,99,103,12000,41.25',
      '2026-03-12,103,105,101.5,102,9500,',
      '2026-03-13,102,102,97.05,98.1,20100,55',
    ]);
  });

  it('writes RFC 4180 fields: null and absent are empty, commas and quotes are quoted', () => {
    const rows = [
      { a: 'x,y', b: 'say "hi"', c: null },
      { a: 'plain', b: 'two\nlines' },
    ] as {
      a: string;
      b: string;
      c?: null;
    }[];
    expect(csvLines(['a', 'b', 'c'], rows)).toEqual(['a,b,c', '"x,y","say ""hi""",', 'plain,"two\nlines",']);
  });
});
