import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, stat, unlink } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';

/** What an object is written from: bytes, or a stream of them (read with backpressure). */
export type ObjectBody = Uint8Array | AsyncIterable<Uint8Array>;

/**
 * Where archived days are kept: a flat namespace of named objects. A write is atomic: under its name
 * there is the previous object (or none) until the new one is complete, then the new one; a write that
 * fails, or whose body stream errors, leaves nothing under the name.
 */
export interface ArchiveTarget {
  /** The target itself, e.g. `file:///var/lib/mdp/usage-archive/` or `s3://bucket/prefix/`. */
  readonly uri: string;
  /** The URI of one object (what a seal's `archive_uri` holds). */
  uriOf(name: string): string;
  /** Writes the whole object, replacing any of that name; resolves once it is durable. */
  write(name: string, body: ObjectBody, options?: { contentType?: string }): Promise<void>;
  /** The object's bytes; rejects with `ObjectNotFoundError` when there is none. */
  read(name: string): Promise<Readable>;
  exists(name: string): Promise<boolean>;
}

export class ObjectNotFoundError extends Error {
  override readonly name = 'ObjectNotFoundError';
  constructor(readonly uri: string) {
    super(`no object at ${uri}`);
  }
}

const OBJECT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,200}$/;

/** An object's name: one path segment of plain characters (no folders, no "..", no hidden names). */
export function assertObjectName(name: string): string {
  if (!OBJECT_NAME.test(name) || name.includes('..'))
    throw new Error(`not an object name: ${JSON.stringify(name)}`);
  return name;
}

const errorCode = (err: unknown) => (err as NodeJS.ErrnoException | null)?.code;

/**
 * A folder on a local or mounted file system (the default target). An object is written to a hidden
 * temporary file in the same folder (`.<name>.<random>.tmp`), fsynced, renamed over its name and the
 * folder fsynced, so a crash at any point leaves either the previous object or the new one whole. The
 * folder is created when missing.
 */
export class FolderTarget implements ArchiveTarget {
  readonly dir: string;
  readonly uri: string;

  constructor(dir: string) {
    this.dir = resolve(dir);
    this.uri = pathToFileURL(`${this.dir}/`).href;
  }

  private path(name: string): string {
    return `${this.dir}/${assertObjectName(name)}`;
  }

  uriOf(name: string): string {
    return pathToFileURL(this.path(name)).href;
  }

  async write(name: string, body: ObjectBody): Promise<void> {
    const path = this.path(name);
    await mkdir(this.dir, { recursive: true });
    const temp = `${this.dir}/.${name}.${randomBytes(6).toString('hex')}.tmp`;
    const file = await open(temp, 'wx', 0o644);
    let renamed = false;
    try {
      if (body instanceof Uint8Array) await file.writeFile(body);
      // Each chunk is written before the next is read: the body's producer waits on the disk.
      else for await (const chunk of body) await file.write(chunk);
      await file.sync();
      await file.close();
      await rename(temp, path);
      renamed = true;
      await syncFolder(this.dir);
    } finally {
      if (!renamed) {
        await file.close().catch(() => {});
        await unlink(temp).catch(() => {});
      }
    }
  }

  async read(name: string): Promise<Readable> {
    const path = this.path(name);
    try {
      const file = await open(path, 'r');
      return file.createReadStream();
    } catch (err) {
      if (errorCode(err) === 'ENOENT') throw new ObjectNotFoundError(this.uriOf(name));
      throw err;
    }
  }

  async exists(name: string): Promise<boolean> {
    try {
      return (await stat(this.path(name))).isFile();
    } catch (err) {
      if (errorCode(err) === 'ENOENT') return false;
      throw err;
    }
  }
}

/** Makes a rename in the folder durable (a no-op where folders cannot be opened for fsync). */
async function syncFolder(dir: string): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch (err) {
    if (!['EISDIR', 'EPERM', 'EINVAL', 'EBADF'].includes(errorCode(err) ?? '')) throw err;
  } finally {
    await handle?.close();
  }
}
