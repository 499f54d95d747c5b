// Trusted workspace roots (README.md "Workspaces"). A session's workspace is where workspace uploads land, so
// only folders the user vouched for qualify: under the home folder, under the default workspace, or added
// explicitly — and never a system directory, even when it is technically under a trusted root.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { writeFileAtomic } from './atomic.js';
import { ValueError } from './errors.js';
import { isInside } from './paths.js';

export const MAX_TRUSTED_ROOTS = 256;
const STORE_FILE = 'workspaces.json';

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

export class Workspaces {
  private added: string[] = [];

  constructor(
    private readonly stateDir: string,
    private readonly defaultWorkspace: string | undefined,
    private readonly home: string = os.homedir(),
  ) {}

  /** Where sessions created without a workspace work: the configured default, else our own folder. */
  get fallbackWorkspace(): string {
    return this.defaultWorkspace ?? path.join(this.stateDir, 'workspace');
  }

  async load(): Promise<void> {
    try {
      const parsed: unknown = JSON.parse(await fs.readFile(path.join(this.stateDir, STORE_FILE), 'utf8'));
      if (Array.isArray(parsed)) this.added = parsed.filter((p): p is string => typeof p === 'string' && path.isAbsolute(p));
    } catch {
      this.added = [];
    }
    if (!this.defaultWorkspace) await fs.mkdir(this.fallbackWorkspace, { recursive: true });
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
    let real: string;
    try {
      real = await fs.realpath(dir);
    } catch {
      throw new ValueError('Workspace does not exist');
    }
    const stat = await fs.stat(real);
    if (!stat.isDirectory()) throw new ValueError('Workspace is not a directory');
    if (isSystemDir(real, this.home)) throw new ValueError('Workspace cannot be a system directory');
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
    if (!this.added.includes(real)) {
      if (this.added.length >= MAX_TRUSTED_ROOTS) throw new ValueError('Too many trusted folders');
      this.added.push(real);
      await writeFileAtomic(path.join(this.stateDir, STORE_FILE), JSON.stringify(this.added, null, 2));
    }
    return this.roots();
  }
}
