import { describe, expect, it } from 'vitest';
import { parseTarget, resolveTarget } from './target.ts';

// The upstream address settings (EQUITIES_ADDR and the like): every form the chart and `make run` give,
// and a clear refusal, naming the setting's value, of anything else.
describe('parseTarget', () => {
  it('reads host:port, dns:///name:port and fixed lists', async () => {
    expect(parseTarget('equities-data:50051')).toEqual({ kind: 'name', host: 'equities-data', port: 50051 });
    expect(parseTarget('dns:///equities.mdp.svc.cluster.local:50051')).toEqual({
      kind: 'name',
      host: 'equities.mdp.svc.cluster.local',
      port: 50051,
    });
    expect(parseTarget('127.0.0.1:50051')).toEqual({ kind: 'fixed', addresses: ['127.0.0.1:50051'] });
    expect(parseTarget('ipv4:127.0.0.1:1,127.0.0.2:2')).toEqual({
      kind: 'fixed',
      addresses: ['127.0.0.1:1', '127.0.0.2:2'],
    });
    expect(parseTarget('ipv6:[::1]:50051')).toEqual({ kind: 'fixed', addresses: ['[::1]:50051'] });
    expect(await resolveTarget(parseTarget('ipv4:127.0.0.1:1,127.0.0.1:1'))).toEqual([
      '127.0.0.1:1',
      '127.0.0.1:1',
    ]);
  });

  it.each([
    ['equities-data', /expected host:port/],
    ['equities-data:0', /expected host:port/],
    ['equities-data:70000', /expected host:port/],
    ['equities-data:port', /expected host:port/],
    ['ipv4:127.0.0.1:1,', /expected host:port/],
    ['ipv4:equities-data:50051', /"equities-data" is not an IP address/],
    ['', /expected host:port/],
  ])('refuses %j, naming it', (target, message) => {
    expect(() => parseTarget(target)).toThrow(message);
    expect(() => parseTarget(target)).toThrow(`gRPC target "${target}"`);
  });
});
