// Trusted workspace roots (README.md "Workspaces"). A session's workspace is where workspace uploads land, so
// only folders the user vouched for qualify: under the home folder, under the default workspace, or added
// explicitly — and never a system directory, even when it is technically under a trusted root.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { writeFileAtomic } from './atomic.js';
import { isInside, ValueError } from './errors.js';

export const MAX_TRUSTED_ROOTS = 256;
const STORE_FILE = 'workspaces.json';

const SYSTEM_DIRS_POSIX = ['/', '/etc', '/usr', '/bin', '/sbin', '/lib', '/lib64', '/boot', '/dev', '/proc', '/sys', '/var', '/root', '/System', '/Library', '/private', '/opt', '/srv', '/run'];
const SYSTEM_DIRS_WIN = ['c:\\', 'c:\\windows', 'c:\\program files', 'c:\\program files (x86)', 'c:\\programdata'];

export function isSystemDir(dir: string): boolean {
  const normalized = path.resolve(dir);
  if (process.platform === 'win32') {
    const lower = normalized.toLowerCase();
    return SYSTEM_DIRS_WIN.some((d) => lower === d || lower === d.replace(/\\$/, '')) || /^[a-z]:\\?$/i.test(lower);
  }
  return SYSTEM_DIRS_POSIX.includes(normalized);
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
    if (isSystemDir(real)) throw new ValueError('Workspace cannot be a system directory');
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
    if (isSystemDir(real)) throw new ValueError('A system directory cannot be a workspace');
    if (!this.added.includes(real)) {
      if (this.added.length >= MAX_TRUSTED_ROOTS) throw new ValueError('Too many trusted folders');
      this.added.push(real);
      await writeFileAtomic(path.join(this.stateDir, STORE_FILE), JSON.stringify(this.added, null, 2));
    }
    return this.roots();
  }
}
