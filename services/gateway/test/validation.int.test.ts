import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServices, startGateway, startServices, type TestGateway } from './harness.ts';
import { type ParamSpec, type RouteSpec, SPEC_ROUTES, withParam, withPathParam } from './spec-table.ts';

let services: RunningServices;
let gw: TestGateway;

beforeAll(async () => {
  services = await startServices();
  gw = await startGateway(services);
});
afterAll(async () => {
  await gw.close();
  await services.stop();
});

async function expectOk(url: string) {
  const res = await gw.get(url);
  expect(res.statusCode, `${url} → ${res.body}`).toBe(200);
  return res.json();
}

async function expect400(url: string, param: string) {
  const res = await gw.get(url);
  expect(res.statusCode, `${url} → ${res.body}`).toBe(400);
  const body = res.json();
  expect(body.error.code).toBe('invalid_request');
  expect(body.error.details?.param).toBe(param);
  expect(body.error.message.length).toBeGreaterThan(0);
}

/** A list of n distinct valid items for a comma-separated parameter. */
function items(p: ParamSpec & { kind: 'csv' }, n: number): string[] {
  if (p.values) return p.values.slice(0, n);
  return Array.from({ length: n }, (_, i) => (p.name === 'names' ? `Index ${i}` : `SYM${i}`));
}

function casesFor(spec: RouteSpec, p: ParamSpec) {
  const set = (v: string) => withParam(spec.example, p.name, v);
  switch (p.kind) {
    case 'int':
      it(`${p.name}: both sides of ${p.min}..${p.max}`, async () => {
        const seen = (await expectOk(set(String(p.min)))).data.request;
        if (p.name !== 'quarters') expect(seen[p.name]).toBe(p.min);
        await expectOk(set(String(p.max)));
        await expect400(set(String(p.min - 1)), p.name);
        await expect400(set(String(p.max + 1)), p.name);
      });
      it(`${p.name}: malformed integers`, async () => {
        for (const bad of ['abc', '1.5', '', '0x10', ' 5', '1e2', '99999999999999999999'])
          await expect400(set(bad), p.name);
      });
      break;
    case 'enum':
      if (p.in === 'path') {
        it(`${p.name}: every value of the path enum, and an unknown one`, async () => {
          for (const v of p.values) await expectOk(withPathParam(spec, p.name, v));
          await expect400(withPathParam(spec, p.name, 'TCS'), p.name);
        });
        break;
      }
      it(`${p.name}: every value of ${p.values.join('|')}, and unknown ones`, async () => {
        for (const v of p.values) await expectOk(set(v));
        await expect400(set('bogus'), p.name);
        await expect400(
          set(p.values[0]!.toUpperCase() === p.values[0] ? 'x' : p.values[0]!.toUpperCase()),
          p.name,
        );
        await expect400(set(''), p.name);
      });
      break;
    case 'text':
      it(`${p.name}: 1..${p.maxLength} characters`, async () => {
        await expectOk(set('x'.repeat(p.maxLength)));
        await expect400(set('x'.repeat(p.maxLength + 1)), p.name);
        await expect400(set(''), p.name);
        await expect400(set('a\u0001b'), p.name);
      });
      break;
    case 'date':
      it(`${p.name}: real calendar dates as YYYY-MM-DD only`, async () => {
        await expectOk(set('2024-02-29'));
        for (const bad of [
          '2023-02-29',
          '2024-13-01',
          '2024-04-31',
          '20240101',
          '2024-1-5',
          'yesterday',
          '',
        ]) {
          await expect400(set(bad), p.name);
        }
      });
      break;
    case 'csv':
      it(`${p.name}: 1..${p.maxItems} distinct comma-separated values`, async () => {
        const seen = (await expectOk(set(items(p, p.maxItems).join(',')))).data.request;
        expect(seen[p.name]).toHaveLength(p.maxItems);
        if (!p.values) await expect400(set([...items(p, p.maxItems), 'EXTRA'].join(',')), p.name);
        await expect400(set(''), p.name);
        await expect400(set(`${items(p, 1)[0]},${items(p, 1)[0]}`), p.name);
        await expect400(set(`${items(p, 1)[0]},`), p.name);
        if (p.values) await expect400(set(`${p.values[0]},bogus`), p.name);
      });
      break;
    case 'pages':
      it(`${p.name}: range syntax 1-8, 12, 40-`, async () => {
        for (const ok of ['1-8', '12', '40-', '3-3']) await expectOk(set(ok));
        for (const bad of ['0', '0-3', '8-1', 'a', '1--2', '-5', '1-2-3', '1,2', ''])
          await expect400(set(bad), p.name);
      });
      break;
    case 'symbol':
    case 'name':
      it(`${p.name}: at most ${p.maxLength} characters in the path`, async () => {
        const ok = await expectOk(withPathParam(spec, p.name, 'A'.repeat(p.maxLength)));
        expect(ok.data.request[p.name]).toBe('A'.repeat(p.maxLength));
        await expect400(withPathParam(spec, p.name, 'A'.repeat(p.maxLength + 1)), p.name);
        await expect400(withPathParam(spec, p.name, 'A%00B'), p.name);
      });
      it(`${p.name}: 65 to 10,000 characters in the path are refused by name, in the API's words`, async () => {
        for (const n of [p.maxLength + 1, 65, 2_048, 2_049, 5_000, 10_000]) {
          const res = await gw.get(withPathParam(spec, p.name, 'A'.repeat(n)));
          expect(res.statusCode, `${n} characters`).toBe(400);
          const { error } = res.json();
          expect(error).toMatchObject({ code: 'invalid_request', details: { param: p.name } });
          expect(error.message).not.toMatch(/FST_|ERR_/);
          expect(error.message.length).toBeLessThan(200);
        }
      });
      break;
  }
}

describe.each(SPEC_ROUTES.filter((r) => r.upstream))('$operationId ($path)', (spec) => {
  it('an unknown parameter is refused by name', async () => {
    await expect400(withParam(spec.example, 'zzz', '1'), 'zzz');
  });
  for (const p of spec.params) {
    if ('required' in p && p.required) {
      it(`${p.name} is required`, async () => {
        const url = new URL(spec.example, 'http://x');
        url.searchParams.delete(p.name);
        await expect400(`${url.pathname}${url.search}`, p.name);
      });
    }
    casesFor(spec, p);
  }
});

describe('rules beyond single bounds', () => {
  it('a parameter given twice is refused, not silently merged', async () => {
    await expect400('/v1/stocks?q=a&limit=1&limit=2', 'limit');
    await expect400('/v1/quotes?symbols=TCS&symbols=INFY', 'symbols');
  });

  it('more than 20 symbols is a 400, nothing dropped', async () => {
    const twenty = Array.from({ length: 20 }, (_, i) => `S${i}`);
    expect((await expectOk(`/v1/quotes?symbols=${twenty.join(',')}`)).data.request.symbols).toEqual(twenty);
    await expect400(`/v1/quotes?symbols=${[...twenty, 'S20'].join(',')}`, 'symbols');
  });

  it('include takes at most 3 and only technicals, ratings, peers', async () => {
    await expectOk('/v1/stocks/TCS?include=technicals,ratings,peers');
    await expect400('/v1/stocks/TCS?include=technicals,ratings,peers,technicals', 'include');
    await expect400('/v1/stocks/TCS?include=news', 'include');
  });

  it('periods and its alias quarters together are refused', async () => {
    await expect400('/v1/stocks/TCS/financials?periods=4&quarters=8', 'quarters');
  });

  it('a summary needs doc_id or doc_type', async () => {
    await expect400('/v1/stocks/TCS/documents/summary', 'doc_id');
    await expectOk('/v1/stocks/TCS/documents/summary?doc_type=concall');
  });

  it('malformed percent-encoding in the query names the parameter', async () => {
    await expect400('/v1/stocks?q=%E0%A4', 'q');
    await expect400('/v1/stocks?q=%zz', 'q');
  });

  it('symbols outside letters, digits and & . _ - are refused', async () => {
    for (const bad of ['TC%20S', 'TC%2FS', 'T%3CS%3E']) await expect400(`/v1/stocks/${bad}/quote`, 'symbol');
  });
});
