// Starts bench/floor-server.ts (the durable charge and nothing else) as production runs a service: its
// esbuild bundle with `make build`'s options, under plain Node (it bundles `@mdp/nats`, whose TypeScript
// Node's own type stripping cannot run). The bundle is removed when this process ends.
import { type ChildProcess, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../scripts/lib/services.ts';
import { freePort } from '../test/ports.ts';
import { atProcessEnd } from '../test/process-end.ts';
import { bundleOne } from './bundled.ts';

export interface Floor {
  child: ChildProcess;
  url: string;
}

export async function startFloor(natsUrl: string): Promise<Floor> {
  const dir = join(ROOT, '.local', `bench-floor-${process.pid}`);
  atProcessEnd(() => rmSync(dir, { recursive: true, force: true }));
  const outfile = join(dir, 'floor-server.js');
  await bundleOne(join(ROOT, 'bench/floor-server.ts'), outfile);
  const port = await freePort();
  const child = spawn(process.execPath, [outfile], {
    env: { ...process.env, PORT: String(port), NATS_URL: natsUrl },
    stdio: 'inherit',
  });
  atProcessEnd(() => child.kill('SIGKILL'));
  return { child, url: `http://127.0.0.1:${port}/floor` };
}
