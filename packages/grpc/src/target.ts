import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

/** Where a target's addresses come from: a fixed list, or a name looked up again from time to time. */
export type Target = { kind: 'fixed'; addresses: string[] } | { kind: 'name'; host: string; port: number };

function hostPort(text: string, target: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(text);
  const port = Number(m?.[3]);
  if (!m || port < 1 || port > 65535) throw new Error(`gRPC target "${target}": expected host:port`);
  return { host: (m[1] ?? m[2])!, port };
}

/** `ip:port`, with an IPv6 address in brackets: how an address is labelled and dialled. */
function formatAddress(host: string, port: number): string {
  return isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * The grpc-js target forms the platform's configuration uses: `host:port`, `dns:///host:port` (a
 * Kubernetes headless Service: one address per ready pod), and `ipv4:a:port,b:port` or
 * `ipv6:[a]:port,…` (a fixed list).
 */
export function parseTarget(target: string): Target {
  const list = /^ipv[46]:(.+)$/.exec(target);
  if (list) {
    return {
      kind: 'fixed',
      addresses: list[1]!.split(',').map((a) => {
        const { host, port } = hostPort(a, target);
        if (!isIP(host)) throw new Error(`gRPC target "${target}": "${host}" is not an IP address`);
        return formatAddress(host, port);
      }),
    };
  }
  const { host, port } = hostPort(target.replace(/^dns:\/\/[^/]*\//, ''), target);
  return isIP(host)
    ? { kind: 'fixed', addresses: [formatAddress(host, port)] }
    : { kind: 'name', host, port };
}

/** Every address the target has now (a name: every address the resolver gives, IPv4 and IPv6). */
export async function resolveTarget(target: Target): Promise<string[]> {
  if (target.kind === 'fixed') return target.addresses;
  const found = await lookup(target.host, { all: true });
  return [...new Set(found.map((a) => formatAddress(a.address, target.port)))];
}
