// Archives made by the tools people use (Info-ZIP, 7-Zip, bsdtar, GNU tar, pigz, pbzip2, pixz, xz), built at
// test time, and the trees those tools' own extractors produce, so the engine is judged against them.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';

const found = new Map<string, boolean>();

/** Whether `command` is on PATH; prints why a test is skipped when it is not (Debian package in `pkg`). */
export function hasTool(command: string, pkg: string): boolean {
  if (!found.has(command)) {
    const ok = spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;
    if (!ok) console.log(`skipping tests that need \`${command}\`: not installed (Debian package ${pkg})`);
    found.set(command, ok);
  }
  return found.get(command)!;
}

export function run(command: string, args: string[], cwd: string, input?: Buffer): Buffer {
  return execFileSync(command, args, { cwd, input, maxBuffer: 1 << 30, stdio: ['pipe', 'pipe', 'pipe'] });
}

/** A source tree like a real project: UTF-8 names, an executable script, a binary, a symlink, an empty dir. */
export async function makeSourceTree(dir: string): Promise<void> {
  await fsp.mkdir(path.join(dir, 'sub', 'deeper'), { recursive: true });
  await fsp.mkdir(path.join(dir, 'empty'));
  await fsp.writeFile(path.join(dir, 'café.md'), '# café\n');
  await fsp.writeFile(path.join(dir, '中文文件.md'), '中文\n');
  await fsp.writeFile(path.join(dir, 'configure'), '#!/bin/sh\necho configured\n', { mode: 0o755 });
  await fsp.chmod(path.join(dir, 'configure'), 0o755);
  await fsp.writeFile(path.join(dir, 'sub', 'data.bin'), Buffer.from(Array.from({ length: 70000 }, (_, i) => (i * 7919) % 251)));
  await fsp.writeFile(path.join(dir, 'sub', 'deeper', 'notes.txt'), 'notes\n'.repeat(1000));
  await fsp.symlink('configure', path.join(dir, 'link-to-configure'));
}

export interface TreeFile {
  path: string;
  mode: number;
  bytes: string;
}

/** Every regular file below `dir`: relative path, permission bits, content (hex digest-free: the bytes). */
export async function regularFiles(dir: string): Promise<TreeFile[]> {
  const out: TreeFile[] = [];
  await walkTree(dir, async (rel, entry) => {
    if (!entry.isFile()) return;
    const full = path.join(dir, rel);
    out.push({ path: rel, mode: fs.lstatSync(full).mode & 0o7777, bytes: (await fsp.readFile(full)).toString('base64') });
  });
  return out.sort((a, b) => a.path.localeCompare(b.path));
}

/** The symlinks below `dir` (relative paths), which the engine must report as skipped. */
export async function symlinks(dir: string): Promise<string[]> {
  const out: string[] = [];
  await walkTree(dir, (rel, entry) => {
    if (entry.isSymbolicLink()) out.push(rel);
  });
  return out.sort();
}

/** Visit every entry below `dir` but its directories (`/`-separated relative path), never following a link. */
async function walkTree(dir: string, visit: (rel: string, entry: fs.Dirent) => void | Promise<void>, rel = ''): Promise<void> {
  for (const entry of await fsp.readdir(path.join(dir, rel), { withFileTypes: true })) {
    const child = rel ? `${rel}/${entry.name}` : entry.name;
    if (entry.isDirectory()) await walkTree(dir, visit, child);
    else await visit(child, entry);
  }
}
