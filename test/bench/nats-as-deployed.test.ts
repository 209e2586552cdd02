import { describe, expect, it } from 'vitest';
import { cores, deployedNatsEnv } from '../../bench/nats-as-deployed.ts';

// The bench's nats-server runs with the Go settings the chart's NATS values give it in Kubernetes.

describe('the nats-server settings make bench runs with', () => {
  it('are those of deploy/nats-jetstream-values.yaml: GOMAXPROCS from its CPU request rounded up, and its literal env', () => {
    const env = deployedNatsEnv();
    expect(env.GOMAXPROCS).toBe('1');
    expect(env.GOMEMLIMIT).toMatch(/^\d+MiB$/);
  });

  it('round a request of more than a core up, as the downward API does', () => {
    const values = (cpu: string) => `
container:
  env:
    GOMAXPROCS:
      valueFrom:
        resourceFieldRef:
          containerName: nats
          resource: requests.cpu
  merge:
    resources:
      requests:
        cpu: ${cpu}
`;
    expect(deployedNatsEnv(values('1500m')).GOMAXPROCS).toBe('2');
    expect(deployedNatsEnv(values('2')).GOMAXPROCS).toBe('2');
    expect(deployedNatsEnv(values('100m')).GOMAXPROCS).toBe('1');
  });

  it('refuses a CPU quantity it cannot read, and a GOMAXPROCS from a request that is not there', () => {
    expect(() => cores('lots')).toThrow(/not a CPU quantity: lots/);
    expect(() => cores('0')).toThrow(/not a CPU quantity/);
    expect(() =>
      deployedNatsEnv(
        'container:\n  env:\n    GOMAXPROCS:\n      valueFrom:\n        resourceFieldRef:\n          resource: requests.cpu\n',
      ),
    ).toThrow(/none is set/);
  });
});
