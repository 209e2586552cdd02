// The Redis of the rate-limit peer (bench/peer-server.ts): a redis-server of the bench's own on a leased
// port, nothing persisted, stopped when the bench stops however it ends (a Redis already running on the
// machine, on 6379 or elsewhere, is never used or touched).
import { spawn } from 'node:child_process';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { freePort } from '../test/stack.ts';
import { supervise } from './child.ts';

/** The server binary: `REDIS_SERVER` or the one on PATH. */
const REDIS_SERVER = process.env.REDIS_SERVER ?? 'redis-server';

export interface BenchRedis {
  port: number;
  /** The redis-server process itself (spawned without a shell), for its CPU group. */
  pid: number;
  stop(): Promise<void>;
}

/** Resolves when a PING on `port` is answered with PONG, false on any error. */
function pong(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let answer = '';
    socket.setTimeout(500, () => socket.destroy());
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      answer += String(chunk);
      if (answer.includes('\r\n')) socket.end();
    });
    socket.on('close', () => resolve(answer.startsWith('+PONG')));
    socket.on('error', () => resolve(false));
  });
}

export async function startRedis(): Promise<BenchRedis> {
  const port = await freePort();
  const child = spawn(
    REDIS_SERVER,
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      tmpdir(),
      '--daemonize',
      'no',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const proc = supervise(child);
  const until = Date.now() + 10_000;
  while (!(await pong(port))) {
    if (proc.exited() || Date.now() > until) {
      await proc.stop();
      throw new Error(
        `redis-server did not answer on port ${port} (output: ${proc.output.join('').slice(-2000)})`,
      );
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { port, pid: child.pid!, stop: proc.stop };
}
