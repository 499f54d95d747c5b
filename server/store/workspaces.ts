// Trusted workspace roots (README.md "Security model"). A session's workspace is where workspace uploads land, so
// only folders the user vouched for qualify: under the home folder, under the default workspace, or added
// explicitly — and never a system directory, a credential store (~/.ssh, ~/.aws …) or a folder other users
// can write to, even when it is technically under a trusted root.
import type { Stats } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { writeFileAtomic } from './atomic.js';
import { ValueError } from '../core/errors.js';
import { isCredentialPath, isInside } from '../core/paths.js';
import { PROTECTED_WORKSPACE, ProtectedPlaces } from './protected.js';

export { PROTECTED_WORKSPACE } from './protected.js';

export const MAX_TRUSTED_ROOTS = 256;
const STORE_FILE = 'workspaces.json';
/** Satchel's own default workspace is private to the user: nobody else may list or plant files in it. */
export const DEFAULT_WORKSPACE_MODE = 0o700;
const OTHER_WRITE = 0o002;
const GROUP_WRITE = 0o020;
/** The superuser owns system folders; a folder it owns is not "another user's". */
const ROOT_UID = 0;
/** The sticky bit: in such a folder (`/tmp`) only an entry's owner may rename or delete it. */
const STICKY_BIT = 0o1000;

export const CREDENTIAL_WORKSPACE = 'A credential folder, or a folder inside one, cannot be a workspace';
export const SHARED_WORKSPACE = 'A folder other users can write to cannot be a workspace';
export const SHARED_PARENT_WORKSPACE = 'A folder inside a folder other users can write to cannot be a workspace';

// Trees that belong to the operating system: neither they nor anything inside them can be a workspace.
const SYSTEM_TREES_POSIX = ['/etc', '/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/boot', '/dev', '/proc', '/sys', '/System', '/Library', '/private/etc', '/private/var', '/var/lib', '/var/log', '/var/run', '/var/spool', '/var/cache', '/var/db', '/snap'];
// Folders that hold system and user data side by side: refused themselves, but a project inside may qualify.
const SYSTEM_ROOTS_POSIX = ['/', '/var', '/opt', '/srv', '/run', '/root', '/private', '/home', '/Users', '/Volumes', '/mnt', '/media', '/tmp'];
const SYSTEM_TREES_WIN = ['c:\\windows', 'c:\\program files', 'c:\\program files (x86)', 'c:\\programdata'];
const SYSTEM_ROOTS_WIN = ['c:\\users'];

function within(dir: string, roots: readonly string[], caseInsensitive: boolean): boolean {
  const d = caseInsensitive ? dir.toLowerCase() : dir;
  return roots.some((root) => isInside(root, d));
}

/**
 * A system directory, or a folder inside one. The user's home is never system (even when it is /root), so a
 * project under it always qualifies; the home itself may be a workspace, a bare `/home` may not.
 */
export function isSystemDir(dir: string, home: string = os.homedir(), platform: NodeJS.Platform = process.platform): boolean {
  const normalized = path.resolve(dir);
  const win = platform === 'win32';
  const norm = (p: string) => (win ? p.toLowerCase() : p);
  if (home && path.resolve(home) !== path.parse(path.resolve(home)).root && isInside(norm(path.resolve(home)), norm(normalized))) return false;
  if (win) {
    if (/^[a-z]:\\?$/i.test(normalized)) return true;
    return within(normalized, SYSTEM_TREES_WIN, true) || SYSTEM_ROOTS_WIN.includes(normalized.toLowerCase());
  }
  return within(normalized, SYSTEM_TREES_POSIX, false) || SYSTEM_ROOTS_POSIX.includes(normalized);
}

/** True when `dir`, an absolute path, names a credential store or lies inside one (CREDENTIAL_NAMES). */
export function isCredentialDir(dir: string): boolean {
  return isCredentialPath(path.resolve(dir).split(/[\\/]/).filter(Boolean));
}

type StatFn = (p: string) => Promise<Pick<Stats, 'mode'> & Partial<Pick<Stats, 'uid' | 'gid'>>>;

/** Who we are: a folder's owner and group are judged against these. */
export interface OwnIds {
  uid?: number;
  gid?: number;
}

const ownIds = (): OwnIds => ({ uid: process.getuid?.(), gid: process.getgid?.() });

/**
 * Someone other than us can create, rename or delete names in a folder with this stat: any user when it is
 * world-writable; its group's members when it is group-writable and the group is not our own primary group
 * (with umask 002, as on Ubuntu, every folder is group-writable, but the group is the user's private one);
 * its owner when that is another user (root excepted: it can do anything anyway).
 */
function othersCanWrite(st: Awaited<ReturnType<StatFn>>, own: OwnIds): boolean {
  if ((st.mode & OTHER_WRITE) !== 0) return true;
  if ((st.mode & GROUP_WRITE) !== 0 && (st.gid === undefined || st.gid !== own.gid)) return true;
  return st.uid !== undefined && own.uid !== undefined && st.uid !== own.uid && st.uid !== ROOT_UID;
}

/**
 * Why other users could put files into `real` (a real path, no symlinks), or null when they cannot.
 * The folder itself must have no group or other write bit: in `/tmp`, `/var/tmp`, `/dev/shm` or any shared
 * folder another user can create names before us (and swap them for symlinks), sticky bit or not. Each
 * ancestor may be shared only with the sticky bit (as `/tmp` is): without it another user can rename our
 * folder away and put their own in its place. So a private folder made inside `/tmp` qualifies. Windows
 * has no such mode bits (ACLs decide), so nothing is checked there.
 */
export async function sharedWriteProblem(
  real: string,
  platform: NodeJS.Platform = process.platform,
  stat: StatFn = fs.stat,
  own: OwnIds = ownIds(),
): Promise<string | null> {
  if (platform === 'win32') return null;
  if (othersCanWrite(await stat(real), own)) return SHARED_WORKSPACE;
  for (let dir = path.dirname(real); ; dir = path.dirname(dir)) {
    const st = await stat(dir);
    if (othersCanWrite(st, own) && (st.mode & STICKY_BIT) === 0) return SHARED_PARENT_WORKSPACE;
    if (path.dirname(dir) === dir) return null;
  }
}

export class Workspaces {
  private added: string[] = [];
  /** Satchel's own data and the credential places: refused as workspaces, hidden inside them (protected.ts). */
  readonly protectedPlaces: ProtectedPlaces;

  constructor(
    private readonly stateDir: string,
    private readonly defaultWorkspace: string | undefined,
    private readonly home: string = os.homedir(),
  ) {
    this.protectedPlaces = ProtectedPlaces.forServer(stateDir, home);
  }

  /** Where sessions created without a workspace work: the configured default, else our own folder. */
  get fallbackWorkspace(): string {
    return this.defaultWorkspace ?? path.join(this.stateDir, 'workspace');
  }

  /** Our own `<state>/workspace` (not a configured default) when it is `dir`. */
  private isOwnDefault(dir: string): boolean {
    return !this.defaultWorkspace && path.resolve(dir) === path.resolve(this.fallbackWorkspace);
  }

  async load(): Promise<void> {
    await this.protectedPlaces.resolve();
    try {
      const parsed: unknown = JSON.parse(await fs.readFile(path.join(this.stateDir, STORE_FILE), 'utf8'));
      if (Array.isArray(parsed)) this.added = parsed.filter((p): p is string => typeof p === 'string' && path.isAbsolute(p));
    } catch {
      this.added = [];
    }
  }

  roots(): string[] {
    const roots = [this.home, this.fallbackWorkspace, ...this.added];
    return [...new Set(roots.map((r) => path.resolve(r)))];
  }

  /**
   * The real path of an existing, trusted, non-system directory, or a ValueError saying what is wrong.
   * Symlinks are resolved first so a link in the home folder cannot point the workspace at /etc.
   */
  async validate(dir: unknown): Promise<string> {
    if (typeof dir !== 'string' || dir.trim() === '') throw new ValueError('Workspace must be a directory path');
    if (!path.isAbsolute(dir)) throw new ValueError('Workspace must be an absolute path');
    // Satchel's own default workspace is created on first use, private (a configured one must exist).
    if (this.isOwnDefault(dir)) await fs.mkdir(dir, { recursive: true, mode: DEFAULT_WORKSPACE_MODE });
    let real: string;
    try {
      real = await fs.realpath(dir);
    } catch {
      throw new ValueError('Workspace does not exist');
    }
    const stat = await fs.stat(real);
    if (!stat.isDirectory()) throw new ValueError('Workspace is not a directory');
    if (isSystemDir(real, this.home)) throw new ValueError('Workspace cannot be a system directory');
    await this.refuseUnsafe(dir, real);
    const trusted = await Promise.all(this.roots().map((r) => fs.realpath(r).catch(() => path.resolve(r))));
    if (!trusted.some((root) => isInside(root, real))) {
      throw new ValueError('Workspace is not in a trusted folder; add it first');
    }
    return real;
  }

  async add(dir: unknown): Promise<string[]> {
    if (typeof dir !== 'string' || !path.isAbsolute(dir)) throw new ValueError('Folder must be an absolute path');
    let real: string;
    try {
      real = await fs.realpath(dir);
    } catch {
      throw new ValueError('Folder does not exist');
    }
    if (!(await fs.stat(real)).isDirectory()) throw new ValueError('Folder is not a directory');
    if (isSystemDir(real, this.home)) throw new ValueError('A system directory cannot be a workspace');
    await this.refuseUnsafe(dir, real);
    if (!this.added.includes(real)) {
      if (this.added.length >= MAX_TRUSTED_ROOTS) throw new ValueError('Too many trusted folders');
      this.added.push(real);
      await writeFileAtomic(path.join(this.stateDir, STORE_FILE), JSON.stringify(this.added, null, 2));
    }
    return this.roots();
  }

  /** Credential stores and protected places (by the path asked for and by where it really is) and folders
   *  others can write to. */
  private async refuseUnsafe(requested: string, real: string): Promise<void> {
    if (isCredentialDir(requested) || isCredentialDir(real)) throw new ValueError(CREDENTIAL_WORKSPACE);
    if ((await this.protectedPlaces.contains(requested)) || (await this.protectedPlaces.contains(real))) throw new ValueError(PROTECTED_WORKSPACE);
    const shared = await sharedWriteProblem(real);
    if (shared) throw new ValueError(shared);
  }
}
