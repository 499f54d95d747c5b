// File-system checks for the tests: what the server left on disk.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface FoundFile {
  path: string;
  size: number;
}

/**
 * Every regular file under `dir` (none when it doesn't exist). The server may remove a file between the listing
 * and its stat (a cancelled upload's staging file going while the test polls for exactly that): such a file is
 * gone, so it is not listed, rather than failing the check with ENOENT; so is a folder removed meanwhile.
 */
export function listFiles(dir: string): FoundFile[] {
  const out: FoundFile[] = [];
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return out;
    throw err;
  }
  for (const d of entries) {
    const p = path.join(dir, d.name);
    if (d.isDirectory()) out.push(...listFiles(p));
    else if (d.isFile()) {
      const stat = fs.statSync(p, { throwIfNoEntry: false });
      if (stat) out.push({ path: p, size: stat.size });
    }
  }
  return out;
}

/** Poll `check` until it returns true or the deadline passes; returns the last result. */
export async function eventually(check: () => boolean, deadlineMs = 10_000, stepMs = 100): Promise<boolean> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    if (check()) return true;
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, stepMs));
  }
}

/** Deterministic pseudo-random bytes (xorshift), so a mismatch on disk is reproducible. */
export function patternBytes(size: number, seed = 0x9e3779b9): Buffer {
  const buf = Buffer.allocUnsafe(size);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < size; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    buf[i] = x & 0xff;
  }
  return buf;
}

/** The bytes of `out` that `tool args…` made, run in a fresh folder holding `files` (a .gz made by gzip, a .7z by 7z). */
export function madeBy(files: Record<string, string | Buffer>, out: string, tool: string, args: string[]): Buffer {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-e2e-made-'));
  try {
    for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
    execFileSync(tool, args, { cwd: dir, stdio: 'ignore' });
    return fs.readFileSync(path.join(dir, out));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The names in an attachment folder a person sees: hidden ones (a chip's `.<name>.agent-view.json`) left out. */
export function shownNames(dir: string): string[] {
  return fs.readdirSync(dir).filter((n) => !n.startsWith('.')).sort();
}
