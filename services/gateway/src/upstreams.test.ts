import { status } from '@mdp/grpc';
import { describe, expect, it } from 'vitest';
import { toApiError } from './upstreams.ts';

const failure = (code: number) =>
  Object.assign(new Error('from the service'), { code, details: 'inside detail' });

describe('toApiError', () => {
  it.each([status.UNAVAILABLE, status.DEADLINE_EXCEEDED])(
    'answers the ledger (the quota backend) not answering, status %i, with a 503 to wait out, saying nothing of why',
    (code) => {
      const err = toApiError(failure(code), 'ledger');
      expect(err).toMatchObject({ status: 503, code: 'service_unavailable', headers: { 'Retry-After': 5 } });
      expect(err.message).not.toContain('inside');
    },
  );

  it('answers a data service not answering with a 502 upstream_unavailable', () => {
    expect(toApiError(failure(status.UNAVAILABLE), 'equities')).toMatchObject({
      status: 502,
      code: 'upstream_unavailable',
    });
  });

  it("passes a NOT_FOUND's words on, whichever service said it", () => {
    expect(toApiError(failure(status.NOT_FOUND), 'ledger')).toMatchObject({
      status: 404,
      code: 'not_found',
      message: 'inside detail',
    });
  });
});
