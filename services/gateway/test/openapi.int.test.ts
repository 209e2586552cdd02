import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServices, startGateway, startServices, type TestGateway } from './harness.ts';
import { SPEC_ROUTES } from './spec-table.ts';

let services: RunningServices;
let gw: TestGateway;
let doc: any;

beforeAll(async () => {
  services = await startServices();
  gw = await startGateway(services);
  const res = await gw.inject({ method: 'GET', url: '/v1/openapi.json', anonymous: true });
  expect(res.statusCode).toBe(200);
  doc = res.json();
});
afterAll(async () => {
  await gw.close();
  await services.stop();
});

describe('GET /v1/openapi.json', () => {
  it('is valid OpenAPI 3.1 under a maintained validator', async () => {
    const validator = new Validator();
    const result = await validator.validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(doc.info.version).toBe('1.0.0');
  });

  it('is free and needs no token', async () => {
    expect(doc.paths['/v1/openapi.json'].get.security).toEqual([]);
    expect(doc.paths['/v1/openapi.json'].get['x-request-units']).toBe(0);
    expect(doc.paths['/v1/me/usage'].get['x-request-units']).toBe(0);
  });

  it('declares bearer authentication for everything else', () => {
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.security).toEqual([{ bearerAuth: [] }]);
  });

  it('lists exactly the SPEC routes, GET only, with their operation ids', () => {
    expect(Object.keys(doc.paths).sort()).toEqual(SPEC_ROUTES.map((r) => r.path).sort());
    for (const spec of SPEC_ROUTES) {
      expect(Object.keys(doc.paths[spec.path])).toEqual(['get']);
      expect(doc.paths[spec.path].get.operationId).toBe(spec.operationId);
    }
  });

  it('states every SPEC parameter with its bounds, enums and defaults', () => {
    for (const spec of SPEC_ROUTES) {
      const params = doc.paths[spec.path].get.parameters as any[];
      expect(params.map((p) => p.name).sort(), spec.path).toEqual(spec.params.map((p) => p.name).sort());
      for (const p of spec.params) {
        const op = params.find((x) => x.name === p.name);
        const where = `${spec.path} ${p.name}`;
        expect(op.in, where).toBe(p.in);
        if ('required' in p && p.required) expect(op.required, where).toBe(true);
        if ('default' in p && p.default !== undefined) expect(op.schema.default, where).toEqual(p.default);
        switch (p.kind) {
          case 'int':
            expect(op.schema, where).toMatchObject({ type: 'integer', minimum: p.min, maximum: p.max });
            break;
          case 'enum':
            expect([...op.schema.enum].sort(), where).toEqual([...p.values].sort());
            break;
          case 'csv':
            expect(op, where).toMatchObject({ style: 'form', explode: false });
            expect(op.schema, where).toMatchObject({ type: 'array', maxItems: p.maxItems });
            if (p.values) expect([...op.schema.items.enum].sort(), where).toEqual([...p.values].sort());
            break;
          case 'date':
            expect(op.schema, where).toMatchObject({ type: 'string', format: 'date' });
            break;
          case 'symbol':
          case 'name':
          case 'text':
            expect(op.schema.maxLength, where).toBe(p.maxLength);
            break;
          case 'pages':
            expect(op.schema.pattern, where).toBeTruthy();
            break;
        }
      }
    }
  });

  it('describes the success envelope and the error envelope with every SPEC code', () => {
    const codes = doc.components.schemas.Error.properties.error.properties.code.enum;
    expect([...codes].sort()).toEqual(
      [
        'invalid_request',
        'authentication_required',
        'invalid_token',
        'not_found',
        'route_not_found',
        'method_not_allowed',
        'rate_limited',
        'quota_exhausted',
        'tool_error',
        'internal_error',
        'upstream_unavailable',
        'service_unavailable',
      ].sort(),
    );
    for (const spec of SPEC_ROUTES.filter((r) => r.upstream)) {
      const responses = doc.paths[spec.path].get.responses;
      for (const status of ['200', '400', '401', '404', '429', '500', '502', '503']) {
        expect(responses[status], `${spec.path} ${status}`).toBeDefined();
      }
      expect(responses['200'].content['application/json'].schema.required).toEqual(['data', 'meta']);
    }
    expect(doc.components.schemas.SearchItem.required.sort()).toEqual(
      [
        'symbol',
        'name',
        'bse_code',
        'nse_symbol',
        'sector',
        'industry',
        'macro_sector',
        'is_active',
        'stock_type',
      ].sort(),
    );
  });
});
