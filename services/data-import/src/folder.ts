import { open, readdir, readFile, stat } from 'node:fs/promises';
import { basename, join, relative } from 'node:path';
import yauzl from 'yauzl';

/**
 * One file of the folder being imported: a plain file, or a member of a zip archive (named
 * `archive.zip/inner.csv`, so reports and errors point at what the operator sees).
 */
export interface FolderFile {
  /** Relative to the folder imported. */
  path: string;
  name: string;
  size: number;
  /** The first HEAD_BYTES bytes. */
  head(): Promise<Buffer>;
  bytes(): Promise<Buffer>;
}

/** A file that could not be opened as what its name says (a broken zip), reported, never fatal. */
export interface UnreadableFile {
  path: string;
  reason: string;
}

const HEAD_BYTES = 4096;
/** Bounds on what an archive may expand to: exchange files are megabytes, not gigabytes. */
const MAX_MEMBER_BYTES = 512 * 1024 * 1024;
const MAX_ARCHIVE_DEPTH = 3;

function plainFile(root: string, full: string, size: number): FolderFile {
  return {
    path: relative(root, full),
    name: basename(full),
    size,
    async head() {
      const fh = await open(full, 'r');
      try {
        const buf = Buffer.alloc(Math.min(HEAD_BYTES, size));
        const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
        return buf.subarray(0, bytesRead);
      } finally {
        await fh.close();
      }
    },
    bytes: () => readFile(full),
  };
}

function memoryFile(path: string, data: Buffer): FolderFile {
  return {
    path,
    name: basename(path),
    size: data.length,
    head: async () => data.subarray(0, HEAD_BYTES),
    bytes: async () => data,
  };
}

const isZip = (name: string) => /\.zip$/i.test(name);

/** Every file member of a zip, read into memory (directories skipped; names checked by yauzl). */
function unzip(data: Buffer): Promise<{ name: string; data: Buffer }[]> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(data, { lazyEntries: true, validateEntrySizes: true }, (err, zip) => {
      if (err || !zip) return reject(err ?? new Error('cannot open'));
      const members: { name: string; data: Buffer }[] = [];
      zip.on('error', reject);
      zip.on('end', () => resolve(members));
      zip.on('entry', (entry: yauzl.Entry) => {
        if (entry.fileName.endsWith('/')) return zip.readEntry();
        if (entry.uncompressedSize > MAX_MEMBER_BYTES)
          return reject(new Error(`${entry.fileName} expands to more than ${MAX_MEMBER_BYTES} bytes`));
        zip.openReadStream(entry, (e, stream) => {
          if (e || !stream) return reject(e ?? new Error(`cannot read ${entry.fileName}`));
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('error', reject);
          stream.on('end', () => {
            members.push({ name: entry.fileName, data: Buffer.concat(chunks) });
            zip.readEntry();
          });
        });
      });
      zip.readEntry();
    });
  });
}

async function expandArchive(
  path: string,
  data: Buffer,
  depth: number,
  out: { files: FolderFile[]; unreadable: UnreadableFile[]; archives: number },
): Promise<void> {
  let members: { name: string; data: Buffer }[];
  try {
    members = await unzip(data);
  } catch (err) {
    out.unreadable.push({ path, reason: `not a readable zip archive (${(err as Error).message})` });
    return;
  }
  out.archives++;
  for (const m of members.sort((a, b) => a.name.localeCompare(b.name))) {
    const inner = `${path}/${m.name}`;
    if (isZip(m.name) && depth < MAX_ARCHIVE_DEPTH) await expandArchive(inner, m.data, depth + 1, out);
    else out.files.push(memoryFile(inner, m.data));
  }
}

/**
 * The files under `root` (only under its entries named in `only`, when given), nested folders and zip
 * archives (zips in zips too) opened, in a stable order. Hidden files and folders (a leading dot) are
 * not exchange files and are left out.
 */
export async function listFolder(
  root: string,
  only?: readonly string[],
): Promise<{ files: FolderFile[]; unreadable: UnreadableFile[]; archives: number }> {
  const out = { files: [] as FolderFile[], unreadable: [] as UnreadableFile[], archives: 0 };
  const walk = async (dir: string): Promise<void> => {
    const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) =>
      a.name.localeCompare(b.name),
    );
    for (const e of entries) {
      if (e.name.startsWith('.')) continue;
      if (only && dir === root && !only.includes(e.name)) continue;
      const full = join(dir, e.name);
      if (e.isDirectory()) await walk(full);
      else if (e.isFile()) {
        if (isZip(e.name)) await expandArchive(relative(root, full), await readFile(full), 1, out);
        else out.files.push(plainFile(root, full, (await stat(full)).size));
      }
    }
  };
  await walk(root);
  return out;
}
