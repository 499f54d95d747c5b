// Directory-anchored file operations: every step below a root is taken relative to a directory that is held
// open, so a local process that swaps a directory for a symlink mid-request cannot redirect a write or a read.
// Node has no openat/mkdirat/linkat; on Linux `/proc/self/fd/<fd>/<name>` is the same thing: the kernel
// reaches `name` inside the very directory the descriptor holds, without walking its path again. Elsewhere
// (macOS, Windows) the path is used and checked after the fact: the directory must still be where it was and
// what was opened or created must be what now sits at that name; otherwise it is undone and refused. Walks
// through several components (symlinks judged by where they lead) are in anchored-walk.ts.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { ValueError } from '../core/errors.js';
import { isInside } from '../core/paths.js';
import { isLockedFile, lockedFileRefusal, refuseIfLocked } from './never-open.js';

const { O_RDONLY, O_CREAT, O_EXCL } = fs.constants;
// Both exist on Linux and macOS; Windows has neither (and cannot open a directory at all).
const O_DIRECTORY = fs.constants.O_DIRECTORY ?? 0;
const O_NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;
const DIR_FLAGS = O_RDONLY | O_DIRECTORY | O_NOFOLLOW;

export const PROC_FD_DIR = '/proc/self/fd';
/** Symlinks followed while resolving one path before giving up: the kernel's own MAXSYMLINKS. */
export const MAX_SYMLINK_HOPS = 40;
export const ESCAPES = 'Path escapes its root';
// Verify mode only: how many times the after-the-fact check of an opened or created entry is repeated. A swap
// that sent the operation elsewhere must swap back before every check to go unnoticed; each round halves its
// odds even against a process that does nothing but swap.
export const VERIFY_ROUNDS = 4;

/** What an escape looks like to callers: the ValueError mkdirInside has always thrown. */
export class EscapeError extends ValueError {
  constructor() {
    super(ESCAPES);
    this.name = 'EscapeError';
  }
}

export interface Identity {
  dev: number;
  ino: number;
}

export function sameFile(a: Identity, b: Identity): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

export type AnchorMode = 'proc' | 'verify';
let forced: AnchorMode | undefined;
let detected: Promise<AnchorMode> | undefined;

/** Tests run the after-the-fact checks on Linux too; undefined goes back to detection. */
export function forceAnchorMode(mode: AnchorMode | undefined): void {
  forced = mode;
}

/** 'proc' when `/proc/self/fd/<fd>/.` reaches the directory the descriptor holds (detected once). */
export function anchorMode(): Promise<AnchorMode> {
  if (forced) return Promise.resolve(forced);
  detected ??= (async (): Promise<AnchorMode> => {
    if (!O_DIRECTORY || !O_NOFOLLOW) return 'verify';
    try {
      const handle = await fsp.open(path.parse(process.cwd()).root, DIR_FLAGS);
      try {
        const [held, viaProc] = await Promise.all([handle.stat(), fsp.stat(`${PROC_FD_DIR}/${handle.fd}/.`)]);
        return sameFile(held, viaProc) ? 'proc' : 'verify';
      } finally {
        await handle.close();
      }
    } catch {
      return 'verify';
    }
  })();
  return detected;
}

// One component, never a way up or across: a separator (a backslash only where it is one) or NUL.
function checkName(name: string): void {
  const separator = name.includes('/') || (process.platform === 'win32' && name.includes('\\'));
  if (name === '' || name === '.' || name === '..' || separator || name.includes('\0')) throw new EscapeError();
}

export function errno(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}

/** A directory held open (or, without O_DIRECTORY, identified) below a root; close it when done. */
export class AnchoredDir {
  private closed = false;

  private constructor(
    /** Where the directory was when it was anchored: the real path responses report. */
    readonly path: string,
    private readonly handle: fsp.FileHandle | null,
    readonly id: Identity,
    /** The real path of the root this directory was reached from. */
    readonly root: string,
    readonly mode: AnchorMode,
  ) {}

  /** Anchor a trusted root (its own path is not re-checked later; everything below it is). */
  static async open(dir: string): Promise<AnchoredDir> {
    const mode = await anchorMode();
    const real = await fsp.realpath(dir);
    return AnchoredDir.anchor(real, real, real, mode);
  }

  /**
   * Anchor the directory at `dir` as named, its last component never a symlink (ELOOP), without resolving the
   * path first (open() would follow a symlink put in place before the realpath). Where it really is, is then
   * asked of the descriptor (whereNow), not of the path.
   */
  static async openExact(dir: string): Promise<AnchoredDir> {
    const mode = await anchorMode();
    const named = path.resolve(dir);
    return AnchoredDir.anchor(named, named, named, mode);
  }

  private static async anchor(reach: string, logical: string, root: string, mode: AnchorMode): Promise<AnchoredDir> {
    const handle = O_DIRECTORY ? await fsp.open(reach, DIR_FLAGS) : null;
    try {
      const stat = handle ? await handle.stat() : await fsp.lstat(reach);
      if (!stat.isDirectory()) throw Object.assign(new Error(`Not a directory: ${logical}`), { code: 'ENOTDIR' });
      return new AnchoredDir(logical, handle, { dev: stat.dev, ino: stat.ino }, root, mode);
    } catch (err) {
      await handle?.close();
      throw err;
    }
  }

  /** The path through which the kernel reaches `name` in this very directory. */
  entry(name: string): string {
    checkName(name);
    return this.mode === 'proc' ? `${PROC_FD_DIR}/${this.handle!.fd}/${name}` : path.join(this.path, name);
  }

  /** entry(), after (in verify mode) checking that the directory is in place: a swap seen then touches nothing. */
  private async reach(name: string): Promise<string> {
    const entry = this.entry(name);
    await this.verifySelf();
    return entry;
  }

  /**
   * Where the held directory is now, as the kernel knows it (the descriptor's link in /proc), whatever was
   * renamed or swapped since it was opened; verify mode: its path, when the directory there is still this one.
   */
  async whereNow(): Promise<string> {
    if (this.mode === 'proc') return fsp.readlink(`${PROC_FD_DIR}/${this.handle!.fd}`);
    const real = await fsp.realpath(this.path);
    const now = await fsp.stat(real);
    if (!sameFile(now, this.id)) throw new EscapeError();
    return real;
  }

  /** A path that reaches this very directory for a watch (fs.watch): its descriptor's, or its path. */
  watchPath(): string {
    return this.mode === 'proc' ? `${PROC_FD_DIR}/${this.handle!.fd}` : this.path;
  }

  /** The names in this directory as bytes: a name that is not UTF-8 is seen as it is, not as U+FFFD. */
  async readdirRaw(): Promise<Buffer[]> {
    const names = await fsp.readdir(this.mode === 'proc' ? `${PROC_FD_DIR}/${this.handle!.fd}` : this.path, { encoding: 'buffer' });
    await this.verifySelf();
    return names;
  }

  /** The reported (real) path of `name` in this directory. */
  pathOf(name: string): string {
    return path.join(this.path, name);
  }

  /** Another anchor on the same directory, closed independently. */
  async dup(): Promise<AnchoredDir> {
    if (this.mode === 'proc') return AnchoredDir.anchor(`${PROC_FD_DIR}/${this.handle!.fd}/.`, this.path, this.root, this.mode);
    const copy = await AnchoredDir.anchor(this.path, this.path, this.root, this.mode);
    if (!sameFile(copy.id, this.id)) {
      await copy.close();
      throw new EscapeError();
    }
    return copy;
  }

  /** The child directory `name`; a symlink there fails (ELOOP or ENOTDIR), it is never followed. */
  async openDir(name: string): Promise<AnchoredDir> {
    const child = await AnchoredDir.anchor(await this.reach(name), this.pathOf(name), this.root, this.mode);
    try {
      await this.verifyEntry(name, child.id);
      return child;
    } catch (err) {
      await child.close();
      throw err;
    }
  }

  async mkdir(name: string): Promise<void> {
    await fsp.mkdir(await this.reach(name));
    // Without descriptors a swapped parent can only be noticed: the empty directory may stay where it landed.
    await this.verifySelf();
  }

  async lstat(name: string): Promise<fs.Stats> {
    const stat = await fsp.lstat(await this.reach(name));
    await this.verifySelf();
    return stat;
  }

  /** Resolve the symlink (or whatever) at `name` to a real path; where it leads is the caller's to judge. */
  realpath(name: string): Promise<string> {
    return fsp.realpath(this.entry(name));
  }

  async readdir(): Promise<fs.Dirent[]> {
    const entries = await fsp.readdir(this.mode === 'proc' ? `${PROC_FD_DIR}/${this.handle!.fd}` : this.path, { withFileTypes: true });
    await this.verifySelf();
    return entries;
  }

  /** A new file, created exclusively without following a symlink at `name`. */
  async createFile(name: string, flags: number, mode: number): Promise<fsp.FileHandle> {
    const handle = await fsp.open(await this.reach(name), flags | O_CREAT | O_EXCL | O_NOFOLLOW, mode);
    try {
      await this.verifyEntry(name, await handle.stat());
      return handle;
    } catch (err) {
      // Verify mode only, and nothing was written yet: the file is removed where it can be found; one a swap
      // sent somewhere that no longer shows stays there, empty.
      const created = await handle.stat().catch(() => undefined);
      await handle.close().catch(() => {});
      await this.undoCreate(name, created);
      throw err;
    }
  }

  /** An existing entry, opened without following a symlink at `name` (ELOOP when one is there). */
  async openFile(name: string, flags: number): Promise<fsp.FileHandle> {
    const target = await this.reach(name);
    // A file Satchel holds a lock on is never opened (store/never-open.ts): closing it would drop the lock.
    const before = await fsp.lstat(target).catch(() => undefined);
    if (before && isLockedFile(before)) throw lockedFileRefusal();
    const handle = await fsp.open(target, flags | O_NOFOLLOW);
    let stat: fs.Stats;
    try {
      stat = await handle.stat();
      refuseIfLocked(handle, stat);
    } catch (err) {
      if (!(stat! && isLockedFile(stat))) await handle.close().catch(() => {});
      throw err;
    }
    try {
      await this.verifyEntry(name, stat);
      return handle;
    } catch (err) {
      await handle.close().catch(() => {});
      throw err;
    }
  }

  /** A hard link at `name`: only where the directory is anchored (ENOTSUP otherwise, callers copy instead). */
  async link(existing: string, name: string): Promise<void> {
    // A link made through a swapped path would put the whole file elsewhere, where it could not be found again.
    if (this.mode !== 'proc') throw Object.assign(new Error('hard links need an anchored directory'), { code: 'ENOTSUP' });
    await fsp.link(existing, this.entry(name));
  }

  async unlink(name: string): Promise<void> {
    await this.verifySelf();
    await fsp.unlink(this.entry(name));
  }

  async rmdir(name: string): Promise<void> {
    await this.verifySelf();
    await fsp.rmdir(this.entry(name));
  }

  /**
   * Remove `name` and, if it is a directory, everything in it, descending only through directories opened
   * without following symlinks (a recursive rm walks paths, and a swap would send it outside). Missing is fine.
   */
  async removeTree(name: string): Promise<void> {
    try {
      await this.unlink(name);
      return;
    } catch (err) {
      const code = errno(err);
      if (code === 'ENOENT') return;
      // Linux answers EISDIR for a directory, macOS EPERM.
      if (code !== 'EISDIR' && code !== 'EPERM') throw err;
    }
    const child = await this.openDir(name);
    try {
      for (const entry of await child.readdir()) await child.removeTree(entry.name);
    } finally {
      await child.close();
    }
    await this.rmdir(name).catch((err: unknown) => {
      if (errno(err) !== 'ENOENT') throw err;
    });
  }

  /** Idempotent: walks hand anchors around and close them on every path. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.handle?.close();
  }

  /** Verify mode: this directory is still at its path, with no symlink on the way, inside its root. */
  private async verifySelf(): Promise<void> {
    if (this.mode === 'proc') return;
    const real = await fsp.realpath(this.path).catch(() => '');
    if (real !== this.path || !isInside(this.root, real)) throw new EscapeError();
    const now = await fsp.stat(real).catch(() => undefined);
    if (!now || !sameFile(now, this.id)) throw new EscapeError();
  }

  /**
   * Verify mode: what was opened or created as `name` is what sits at `name` in this directory. Each check is
   * bracketed by checks of the directory, and the whole is repeated: a process swapping back and forth as fast
   * as it can would have to be on the right side at every one of them.
   */
  private async verifyEntry(name: string, opened: Identity): Promise<void> {
    if (this.mode === 'proc') return;
    await this.verifySelf();
    for (let round = 0; round < VERIFY_ROUNDS; round++) {
      const there = await fsp.lstat(this.pathOf(name)).catch(() => undefined);
      if (!there || !sameFile(there, opened)) throw new EscapeError();
      await this.verifySelf();
    }
  }

  /**
   * Verify mode, after a refused create: remove the file we made wherever it can still be found, at our name or
   * where a symlink in our place points now; identity decides, so nothing that is not ours is touched.
   */
  private async undoCreate(name: string, created: Identity | undefined): Promise<void> {
    if (!created) return;
    const elsewhere = await fsp.realpath(this.path).catch(() => undefined);
    for (const candidate of new Set([this.pathOf(name), ...(elsewhere ? [path.join(elsewhere, name)] : [])])) {
      const there = await fsp.lstat(candidate).catch(() => undefined);
      if (there && sameFile(there, created)) await fsp.unlink(candidate).catch(() => {});
    }
  }
}
