// Shared helpers for the archive tests: temp trees, compression of fixtures with the system tools (tests
// only; the product decodes without them), and a check that nothing leaked outside the destination.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import yazl from 'yazl';

export interface Sandbox {
  /** The extraction base (the session attachment directory). */
  base: string;
  /** A sibling of base: nothing may ever appear here. */
  outside: string;
  /** Where archive files are written. */
  inbox: string;
  root: string;
  cleanup(): Promise<void>;
}

export async function makeSandbox(): Promise<Sandbox> {
  const root = await fsp.mkdtemp(path.join(os.tmpdir(), 'satchel-archive-'));
  const base = path.join(root, 'base');
  const outside = path.join(root, 'outside');
  const inbox = path.join(root, 'inbox');
  await Promise.all([base, outside, inbox].map((d) => fsp.mkdir(d)));
  return { root, base, outside, inbox, cleanup: () => fsp.rm(root, { recursive: true, force: true }) };
}

/** Every path under `dir`, relative, '/'-separated, sorted; directories end with '/'. */
export async function listTree(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (rel: string): Promise<void> => {
    for (const d of await fsp.readdir(path.join(dir, rel), { withFileTypes: true })) {
      const child = rel ? `${rel}/${d.name}` : d.name;
      if (d.isDirectory()) {
        out.push(child + '/');
        await walk(child);
      } else out.push(child);
    }
  };
  await walk('');
  return out.sort();
}

export function compress(tarBytes: Buffer, kind: 'tar' | 'tar.gz' | 'tar.bz2' | 'tar.xz'): Buffer {
  switch (kind) {
    case 'tar':
      return tarBytes;
    case 'tar.gz':
      return zlib.gzipSync(tarBytes);
    case 'tar.bz2':
      return execFileSync('bzip2', ['-c', '-9'], { input: tarBytes, maxBuffer: 1 << 30 });
    case 'tar.xz':
      return execFileSync('xz', ['-c', '-6'], { input: tarBytes, maxBuffer: 1 << 30 });
  }
}

/** A zip written by yazl: `name/` entries are folders, text is stored as UTF-8. */
export async function yazlZip(files: Record<string, Buffer | string>, opts: { compress?: boolean } = {}): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [name, data] of Object.entries(files)) {
    if (name.endsWith('/')) zip.addEmptyDirectory(name);
    else zip.addBuffer(Buffer.isBuffer(data) ? data : Buffer.from(data, 'utf8'), name, { compress: opts.compress ?? true });
  }
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export function writeArchive(sandbox: Sandbox, name: string, bytes: Buffer): string {
  const file = path.join(sandbox.inbox, name);
  fs.writeFileSync(file, bytes);
  return file;
}

/** Deterministic pseudo-random bytes (incompressible, reproducible). */
export function noise(length: number, seed = 1): Buffer {
  const out = Buffer.alloc(length);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out[i] = x & 0xff;
  }
  return out;
}
