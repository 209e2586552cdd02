// Private Postgres and NATS JetStream servers for tests that kill them: each on a loopback port leased
// to this process (ports.ts: nobody else binds it while the server is down between a kill and its
// restart) with its data in a fresh temporary folder, so a SIGKILL hits only this run's instance and
// never the machine's system services (5432, 4222) nor another engineer's. A private NATS cluster is
// the same for several nats-servers routed to each other: each server's ports leased, its store its own.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chownSync,
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type NatsConnection } from 'nats';
import pg from 'pg';
import { freePort, release } from './ports.ts';
import { atProcessEnd } from './process-end.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A server this run started and may kill, restart and remove. */
export interface PrivateServer {
  readonly url: string;
  readonly port: number;
  /** The folder holding its data and logs (removed by cleanup). */
  readonly dir: string;
  /** Pid of the server process now (the postmaster for Postgres); undefined while it is down. */
  pid(): number | undefined;
  /** SIGKILL of the server process, resolved once it is gone, to its pid (undefined when it was down). */
  kill(): Promise<number | undefined>;
  /** Starts it again on the same port and data; resolves once it accepts connections. */
  start(): Promise<void>;
  /** Orderly stop (no-op when it is down). */
  stop(): Promise<void>;
  /** Stops it and removes its folder. */
  cleanup(): Promise<void>;
  /** The last lines of its log, for reports. */
  logTail(lines?: number): string;
}

function run(file: string, args: string[], opts: { cwd?: string } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { cwd: opts.cwd ?? '/' }, (err, stdout, stderr) =>
      err
        ? reject(new Error(`${file} ${args.join(' ')}: ${err.message}\n${stderr}${stdout}`))
        : resolve(stdout),
    );
  });
}

/** Is the process there and not a zombie (a killed daemon waits for init to reap it)? */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true; // no /proc: trust the signal probe
  }
}

async function waitUntil(check: () => Promise<boolean> | boolean, timeoutMs: number, what: string) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await Promise.resolve(check()).catch(() => false)) return;
    await sleep(50);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

function tail(file: string, lines: number): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/** The newest installed Postgres server binaries (Debian keeps them out of PATH). */
function postgresBin(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(join(root, v, 'bin', 'pg_ctl')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0) throw new Error(`no Postgres server binaries under ${root}`);
  return join(root, versions[0]!, 'bin');
}

/**
 * Postgres refuses to run as root, so as root the server tools run as the `postgres` user (as
 * scripts/infra.sh does); as anyone else they run as that user.
 */
async function asPostgresUser(): Promise<{
  wrap: (file: string, args: string[]) => [string, string[]];
  uid?: number;
  gid?: number;
}> {
  if (process.getuid?.() !== 0) return { wrap: (file, args) => [file, args] };
  const uid = Number((await run('id', ['-u', 'postgres'])).trim());
  const gid = Number((await run('id', ['-g', 'postgres'])).trim());
  return { wrap: (file, args) => ['runuser', ['-u', 'postgres', '--', file, ...args]], uid, gid };
}

/** A private Postgres: initdb with trust auth in a fresh temporary folder, database `mdp`, 127.0.0.1 only. */
export async function startPrivatePostgres(): Promise<PrivateServer> {
  const bin = postgresBin();
  const user = await asPostgresUser();
  const dir = mkdtempSync(join(tmpdir(), 'mdp-chaos-pg-'));
  const data = join(dir, 'data');
  const sockets = join(dir, 'run');
  const log = join(dir, 'postgres.log');
  mkdirSync(sockets);
  if (user.uid !== undefined) {
    for (const path of [dir, sockets]) chownSync(path, user.uid, user.gid!);
  }
  const port = await freePort();
  const url = `postgres://postgres@127.0.0.1:${port}/mdp`;
  const tool = (name: string, args: string[]) => run(...user.wrap(join(bin, name), args));

  await tool('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '-N']);

  const postmasterPid = (): number | undefined => {
    try {
      const pid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
      return pid > 0 && alive(pid) ? pid : undefined;
    } catch {
      return undefined;
    }
  };
  const accepts = async () => {
    const client = new pg.Client({
      connectionString: url.replace(/\/mdp$/, '/postgres'),
      connectionTimeoutMillis: 1000,
    });
    client.on('error', () => {});
    try {
      await client.connect();
      await client.query('SELECT 1');
      return true;
    } finally {
      await client.end().catch(() => {});
    }
  };

  const start = async () => {
    // After a SIGKILL of the postmaster its backends linger for a moment and keep the shared memory
    // block in use; pg_ctl then refuses to start, so it is retried until they are gone.
    const until = Date.now() + 30_000;
    for (let attempt = 1; ; attempt++) {
      try {
        await tool('pg_ctl', [
          '-D',
          data,
          '-l',
          log,
          '-s',
          '-w',
          '-t',
          '20',
          '-o',
          `-p ${port} -k ${sockets} -c listen_addresses=127.0.0.1`,
          'start',
        ]);
        break;
      } catch (err) {
        if (Date.now() > until)
          throw new Error(
            `Postgres would not start after ${attempt} attempts: ${(err as Error).message}\n${tail(log, 10)}`,
          );
        await sleep(250);
      }
    }
    await waitUntil(accepts, 20_000, `Postgres on port ${port}`);
  };

  const stop = async () => {
    if (postmasterPid() === undefined) return;
    await tool('pg_ctl', ['-D', data, '-s', '-m', 'fast', '-w', '-t', '20', 'stop']).catch(() => {});
  };

  // Not left running when this process ends uncleaned; SIGQUIT is Postgres's immediate shutdown (the
  // postmaster takes its backends down with it).
  const forget = atProcessEnd(() => {
    const pid = postmasterPid();
    if (pid !== undefined) process.kill(pid, 'SIGQUIT');
  });
  await start();
  const admin = new pg.Client({ connectionString: url.replace(/\/mdp$/, '/postgres') });
  await admin.connect();
  await admin.query('CREATE DATABASE mdp');
  await admin.end();

  return {
    url,
    port,
    dir,
    pid: postmasterPid,
    // Exactly `kill -9` of the postmaster: its backends are left to notice and exit on their own.
    kill: async () => {
      const pid = postmasterPid();
      if (pid === undefined) return undefined;
      process.kill(pid, 'SIGKILL');
      await waitUntil(() => !alive(pid), 10_000, `postmaster ${pid} to exit`);
      return pid;
    },
    start,
    stop,
    cleanup: async () => {
      await stop();
      forget();
      release(port);
      rmSync(dir, { recursive: true, force: true });
    },
    logTail: (lines = 20) => tail(log, lines),
  };
}

/** Resolves true when a NATS server greets on the port with JetStream enabled. */
function natsGreets(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = tcpConnect({ host: '127.0.0.1', port });
    let buf = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.on('error', () => done(false));
    socket.on('data', (chunk) => {
      buf += String(chunk);
      if (buf.includes('\n')) done(buf.startsWith('INFO') && buf.includes('"jetstream":true'));
    });
  });
}

/**
 * A private nats-server with JetStream, its store in a fresh temporary folder, as a child of this process;
 * `env` adds to its environment (the Go runtime's settings, such as GOMAXPROCS).
 */
export async function startPrivateNats(
  binary = '/usr/sbin/nats-server',
  env: Record<string, string> = {},
): Promise<PrivateServer> {
  if (!existsSync(binary)) throw new Error(`no nats-server at ${binary}`);
  const dir = mkdtempSync(join(tmpdir(), 'mdp-chaos-nats-'));
  const log = join(dir, 'nats.log');
  const port = await freePort();
  let child: ChildProcess | undefined;

  const start = async () => {
    if (child && child.exitCode === null && child.signalCode === null) return;
    const out = openSync(log, 'a');
    const proc = spawn(
      binary,
      ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', join(dir, 'jetstream')],
      // Run in its own folder: nats-server 2.9 removing a consumer mid-write can leave its meta.inf and
      // meta.sum in its working directory (seen on a cluster), otherwise the repository's root.
      {
        cwd: dir,
        env: { ...process.env, ...env },
        stdio: ['ignore', out, out],
      },
    );
    child = proc;
    await waitUntil(
      () => {
        if (proc.exitCode !== null || proc.signalCode !== null)
          throw new Error(`nats-server exited: ${tail(log, 5)}`);
        return natsGreets(port);
      },
      20_000,
      `nats-server on port ${port}`,
    );
  };
  const running = () => child !== undefined && child.exitCode === null && child.signalCode === null;
  const signal = async (sig: NodeJS.Signals) => {
    if (!running()) return;
    const proc = child!;
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    proc.kill(sig);
    await exited;
  };

  const forget = atProcessEnd(() => {
    if (running()) child!.kill('SIGKILL');
  });
  await start();
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    dir,
    pid: () => (running() ? child!.pid : undefined),
    kill: async () => {
      const pid = running() ? child!.pid : undefined;
      await signal('SIGKILL');
      return pid;
    },
    start,
    stop: () => signal('SIGTERM'),
    cleanup: async () => {
      await signal('SIGTERM');
      forget();
      release(port);
      rmSync(dir, { recursive: true, force: true });
    },
    logTail: (lines = 20) => tail(log, lines),
  };
}

/** One server of a private NATS cluster. */
export interface ClusterServer {
  /** Its server name, as JetStream names it (a stream's leader and replicas). */
  readonly name: string;
  readonly url: string;
  /** Its client port. */
  readonly port: number;
  /** The port its routes to the other servers listen on. */
  readonly routePort: number;
  /** Pid of its process now; undefined while it is down. */
  pid(): number | undefined;
  running(): boolean;
  /**
   * Sends `sig` to its process; for SIGKILL, SIGTERM, SIGINT and SIGQUIT resolved once it is gone, for
   * any other signal (SIGSTOP, SIGCONT) once sent. A no-op while it is down.
   */
  signal(sig: NodeJS.Signals): Promise<void>;
  /** Starts it again with its ports, name and store; resolves once it greets with JetStream on. */
  start(): Promise<void>;
  /** The last lines of its log, for reports. */
  logTail(lines?: number): string;
}

/** A private NATS cluster with JetStream on loopback, its servers children of this process. */
export interface PrivateNatsCluster {
  /** Every server's client URL, comma-separated: what nats.js takes as `servers` (and `connectNats` as url). */
  readonly url: string;
  readonly servers: readonly ClusterServer[];
  /** The folder holding every server's store and log (removed by stop). */
  readonly dir: string;
  /** The server leading `stream`, as JetStream reports it now; undefined while it has no leader. */
  streamLeader(stream: string): Promise<ClusterServer | undefined>;
  /** Stops every server and removes their folders. */
  stop(): Promise<void>;
}

const EXITING = new Set<NodeJS.Signals>(['SIGKILL', 'SIGTERM', 'SIGINT', 'SIGQUIT']);

/**
 * `size` nats-servers with JetStream in one cluster on 127.0.0.1: each with its own client port, route
 * port (both leased, so a killed server restarts on them), server name and store, routed to all the
 * others. Resolves once JetStream's metadata group has a leader that knows every server: a stream with
 * `size` replicas can be created (and is deleted again).
 */
export async function startPrivateNatsCluster(
  size = 3,
  binary = '/usr/sbin/nats-server',
): Promise<PrivateNatsCluster> {
  if (!existsSync(binary)) throw new Error(`no nats-server at ${binary}`);
  // nats-server refuses a JetStream cluster without routes ("requires configured routes").
  if (!Number.isInteger(size) || size < 2)
    throw new Error(`a cluster of ${size} servers: at least 2 (startPrivateNats is one server)`);
  const dir = mkdtempSync(join(tmpdir(), 'mdp-nats-cluster-'));
  const clusterName = `mdp-${randomBytes(4).toString('hex')}`;
  const ports: number[] = [];
  const release_ = () => {
    for (const port of ports) release(port);
  };
  const specs: { name: string; port: number; routePort: number }[] = [];
  try {
    for (let i = 1; i <= size; i++) {
      const port = await freePort();
      ports.push(port);
      const routePort = await freePort();
      ports.push(routePort);
      specs.push({ name: `n${i}`, port, routePort });
    }
  } catch (err) {
    release_();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }

  const children = new Map<string, ChildProcess>();
  const isRunning = (proc: ChildProcess | undefined) =>
    proc !== undefined && proc.exitCode === null && proc.signalCode === null;
  // Not left running when this process ends uncleaned, nor their stores left in the temporary folder.
  const forget = atProcessEnd(() => {
    for (const proc of children.values()) if (isRunning(proc)) proc.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  const servers: ClusterServer[] = specs.map(({ name, port, routePort }) => {
    const home = join(dir, name);
    mkdirSync(home);
    const log = join(home, 'nats.log');
    const routes = specs
      .filter((s) => s.name !== name)
      .map((s) => `nats://127.0.0.1:${s.routePort}`)
      .join(',');
    const args = [
      '-a',
      '127.0.0.1',
      '-p',
      String(port),
      '--server_name',
      name,
      '-js',
      // Its store in <home>/jetstream (nats-server adds that folder).
      '-sd',
      home,
      '--cluster_name',
      clusterName,
      '--cluster',
      `nats://127.0.0.1:${routePort}`,
      '--routes',
      routes,
    ];
    const running = () => isRunning(children.get(name));
    const start = async () => {
      if (running()) return;
      const out = openSync(log, 'a');
      // In its own folder, as the single server above: a stray meta.inf lands there, not in the repository.
      const proc = spawn(binary, args, { cwd: home, stdio: ['ignore', out, out] });
      closeSync(out);
      children.set(name, proc);
      await waitUntil(
        () => {
          if (!isRunning(proc))
            throw new Error(
              `nats-server ${name} exited (${proc.signalCode ?? proc.exitCode}): ${tail(log, 10)}`,
            );
          return natsGreets(port);
        },
        20_000,
        `nats-server ${name} on port ${port}`,
      );
    };
    const signal = async (sig: NodeJS.Signals) => {
      const proc = children.get(name);
      if (!proc || !isRunning(proc)) return;
      const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
      proc.kill(sig);
      if (EXITING.has(sig)) await exited;
    };
    return {
      name,
      url: `nats://127.0.0.1:${port}`,
      port,
      routePort,
      pid: () => (running() ? children.get(name)!.pid : undefined),
      running,
      signal,
      start,
      logTail: (lines = 20) => tail(log, lines),
    };
  });
  const url = servers.map((s) => s.url).join(',');

  // One connection of the harness's own for its JetStream questions, made when first asked.
  let admin: Promise<NatsConnection> | undefined;
  const connection = () => {
    admin ??= connect({
      servers: url,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
      name: 'private-cluster',
    }).catch((err: Error) => {
      admin = undefined;
      throw err;
    });
    return admin;
  };
  let stopped = false;
  const stop = async () => {
    // Once: a second release could drop a lease this process has taken since for another server.
    if (stopped) return;
    stopped = true;
    if (admin) await (await admin.catch(() => undefined))?.close().catch(() => {});
    admin = undefined;
    await Promise.all(
      servers.map(async (server) => {
        const term = server.signal('SIGTERM');
        const timer = setTimeout(() => void server.signal('SIGKILL'), 5_000);
        await term;
        clearTimeout(timer);
      }),
    );
    forget();
    release_();
    rmSync(dir, { recursive: true, force: true });
  };

  // A server that exits while the cluster forms fails the start with its log's last lines.
  const exited = () => {
    const down = servers.find((s) => children.has(s.name) && !s.running());
    if (down)
      throw new Error(`nats-server ${down.name} exited while the cluster formed: ${down.logTail(10)}`);
  };
  try {
    await Promise.all(servers.map((s) => s.start()));
    const jsm = await (await connection()).jetstreamManager({ timeout: 2_000, checkAPI: false });
    const probe = `CLUSTER_READY_${randomBytes(4).toString('hex').toUpperCase()}`;
    let last = '';
    await waitUntil(
      () => {
        exited();
        return jsm.streams.add({ name: probe, subjects: [probe.toLowerCase()], num_replicas: size }).then(
          () => true,
          (err: Error) => {
            last = err.message;
            return false;
          },
        );
      },
      60_000,
      `JetStream in a cluster of ${size} (a stream of ${size} replicas created)`,
    ).catch((err: Error) => {
      const logs = servers.map((s) => `${s.name}:\n${s.logTail(5)}`).join('\n');
      throw new Error(`${err.message}; last answer: ${last}\n${logs}`);
    });
    await jsm.streams.delete(probe);
  } catch (err) {
    await stop();
    throw err;
  }

  return {
    url,
    servers,
    dir,
    streamLeader: async (stream) => {
      const jsm = await (await connection()).jetstreamManager({ checkAPI: false });
      const leader = (await jsm.streams.info(stream)).cluster?.leader;
      return servers.find((s) => s.name === leader);
    },
    stop,
  };
}
