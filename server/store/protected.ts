// Protected places: folders no workspace may reach, whatever folder the person picks (README "Security model").
// Satchel's own data (the state folder with agent.json, mcp-token and every profile's sessions; the attachment
// root; the Electron user-data folder) and the well-known places where the system, browsers and tools keep
// credentials. They are refused as workspaces, and a workspace that contains one (the home folder) never
// lists, reads, searches or writes it, through the UI routes and MCP alike.
//
// Decided by the directory's real identity (device + inode, resolved at start-up and refreshed now and then),
// so a symlink, a bind mount or another spelling of the path (`library/application support/satchel` on a
// case-insensitive disk) still names the same folder; and by its path, compared case-insensitively, for a
// place that does not exist yet (`~/.aws` made after start-up) or whose identity has not been refreshed.
import type { Stats } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { APP_DIR_NAME } from '../core/config.js';
import { readSetting } from '../settings/table.js';

/** The text of a refused workspace root (400). */
export const PROTECTED_WORKSPACE = "A folder holding Satchel's own data or saved credentials cannot be a workspace";
/** How long resolved identities are trusted before the places are looked at again (a folder made or replaced
 *  meanwhile is still refused by its path; the refresh catches a new alias of it). Some 40 stats per refresh. */
export const PROTECTED_REFRESH_MS = 10_000;
/** Satchel's own default workspace, `<state>/workspace`, is the one folder inside the state folder that is not
 *  Satchel's data: it holds what the person works on (store/workspaces.ts fallbackWorkspace). */
export const OWN_WORKSPACE_DIR = 'workspace';

/** Thrown by a walk that reached a protected place; anchored-browse.ts answers it exactly like a missing path (404). */
export class ProtectedPlaceError extends Error {
  constructor() {
    super('Protected place');
    this.name = 'ProtectedPlaceError';
  }
}

export interface PlaceInputs {
  stateDir: string;
  home: string;
  env: NodeJS.ProcessEnv;
}

/**
 * The named list, one line per place and why. Every OS's places are listed on every OS: a home folder copied or
 * mounted from another system carries them too, refusing a folder that cannot exist costs nothing, and the
 * list can be tested anywhere. Paths only; whether they exist is looked at when identities are resolved.
 */
export function protectedPlaceList({ stateDir, home, env }: PlaceInputs): string[] {
  const h = (...parts: string[]) => path.join(home, ...parts);
  // Windows' roaming and local app-data folders, with their defaults under the home folder.
  const roaming = env.APPDATA || h('AppData', 'Roaming');
  const local = env.LOCALAPPDATA || h('AppData', 'Local');
  const xdgConfig = env.XDG_CONFIG_HOME || h('.config');
  const xdgData = env.XDG_DATA_HOME || h('.local', 'share');
  const macSupport = h('Library', 'Application Support');
  return [
    // Satchel's own data: this server's state folder and attachment root, and the per-user app-data folder
    // of each OS (Electron's user-data folder, where the desktop app keeps its state and Chromium's profile).
    stateDir,
    readSetting('attachmentDir', env) ?? path.join(stateDir, 'attachments'),
    path.join(macSupport, APP_DIR_NAME),
    path.join(roaming, APP_DIR_NAME),
    path.join(xdgConfig, APP_DIR_NAME),
    // Tools' credentials in the home folder (the same names paths.ts CREDENTIAL_NAMES hides by name).
    h('.ssh'),
    h('.gnupg'),
    h('.aws'),
    h('.azure'),
    h('.kube'),
    h('.docker'),
    h('.password-store'),
    path.join(xdgConfig, 'gcloud'),
    path.join(xdgConfig, 'gh'),
    // Linux: the desktop keyrings, the NSS certificate and key store, browsers' profiles.
    path.join(xdgData, 'keyrings'),
    path.join(xdgData, 'kwalletd'),
    h('.pki'),
    h('.mozilla'),
    path.join(xdgConfig, 'google-chrome'),
    path.join(xdgConfig, 'chromium'),
    path.join(xdgConfig, 'BraveSoftware'),
    path.join(xdgConfig, 'microsoft-edge'),
    path.join(xdgConfig, 'vivaldi'),
    path.join(xdgConfig, 'opera'),
    // macOS: keychains, cookies, Safari, browsers' profiles.
    h('Library', 'Keychains'),
    h('Library', 'Cookies'),
    h('Library', 'Safari'),
    path.join(macSupport, 'Google', 'Chrome'),
    path.join(macSupport, 'Chromium'),
    path.join(macSupport, 'BraveSoftware'),
    path.join(macSupport, 'Microsoft Edge'),
    path.join(macSupport, 'Firefox'),
    path.join(macSupport, 'Vivaldi'),
    path.join(macSupport, 'com.operasoftware.Opera'),
    // Windows: the credential manager's vaults, DPAPI master keys, browsers' profiles.
    path.join(roaming, 'Microsoft', 'Credentials'),
    path.join(local, 'Microsoft', 'Credentials'),
    path.join(roaming, 'Microsoft', 'Protect'),
    path.join(local, 'Microsoft', 'Vault'),
    path.join(local, 'Google', 'Chrome', 'User Data'),
    path.join(local, 'Chromium', 'User Data'),
    path.join(local, 'Microsoft', 'Edge', 'User Data'),
    path.join(local, 'BraveSoftware', 'Brave-Browser', 'User Data'),
    path.join(roaming, 'Mozilla', 'Firefox', 'Profiles'),
    path.join(roaming, 'Opera Software'),
  ].map((p) => path.resolve(p));
}

const key = (st: Pick<Stats, 'dev' | 'ino'>): string => `${st.dev}:${st.ino}`;
/** Where paths name folders without regard to case (macOS and Windows disks by default). Elsewhere a folder
 *  that differs in case is another folder (`~/.config/satchel` is not `~/.config/Satchel`); an alias of a place
 *  on a case-insensitive disk mounted there is still caught by its identity. */
export const CASELESS_PLATFORMS: ReadonlySet<NodeJS.Platform> = new Set(['darwin', 'win32']);

/** What a walk asks of its protected places (store/anchored-browse.ts): ProtectedPlaces, or MCP's wider guard
 *  (mcp/kept-out.ts) that also hides the workspaces of conversations kept out of MCP. */
export interface PlaceGuard {
  fresh(): Promise<unknown>;
  isPlace(dirPath: string, id?: Pick<Stats, 'dev' | 'ino'>): boolean;
  check(dirPath: string, id: Pick<Stats, 'dev' | 'ino'>): void;
}

export class ProtectedPlaces {
  private ids = new Set<string>();
  /** The places' paths, case-folded, as of the last resolve(). */
  private folded = new Set<string>();
  private resolvedAt = -Infinity;
  private resolving?: Promise<void>;

  constructor(
    private readonly inputs: () => PlaceInputs,
    private readonly now: () => number = Date.now,
    private readonly caseless: boolean = CASELESS_PLATFORMS.has(process.platform),
  ) {}

  private fold(p: string): string {
    const resolved = path.resolve(p);
    return this.caseless ? resolved.toLowerCase() : resolved;
  }

  /** This server's places: its state folder and the environment read now (the attachment root is per request). */
  static forServer(stateDir: string, home: string = os.homedir()): ProtectedPlaces {
    return new ProtectedPlaces(() => ({ stateDir, home, env: process.env }));
  }

  /** The places as paths (for docs and tests). */
  paths(): string[] {
    return protectedPlaceList(this.inputs());
  }

  /** `<state>/workspace`: inside the state folder, yet a workspace. */
  private ownWorkspace(): string {
    return path.join(path.resolve(this.inputs().stateDir), OWN_WORKSPACE_DIR);
  }

  /** Look up every place's identity (following a symlink at the place to what it names). Runs at start-up. */
  async resolve(): Promise<void> {
    this.resolving ??= (async () => {
      const paths = this.paths();
      this.folded = new Set(paths.map((p) => this.fold(p)));
      const stats = await Promise.all(paths.map((p) => fs.stat(p).catch(() => undefined)));
      this.ids = new Set(stats.filter((s): s is Stats => s !== undefined && s.isDirectory()).map(key));
      this.resolvedAt = this.now();
    })().finally(() => (this.resolving = undefined));
    return this.resolving;
  }

  /** resolve() when the identities are older than PROTECTED_REFRESH_MS. */
  async fresh(): Promise<this> {
    if (this.now() - this.resolvedAt >= PROTECTED_REFRESH_MS) await this.resolve();
    return this;
  }

  /** True when the directory at `dirPath` with identity `id` IS a protected place (not: lies inside one). */
  isPlace(dirPath: string, id?: Pick<Stats, 'dev' | 'ino'>): boolean {
    if (id && this.ids.has(key(id))) return true;
    return this.folded.has(this.fold(dirPath));
  }

  /** Throws ProtectedPlaceError for a protected directory: the check each step of an anchored walk makes. */
  check = (dirPath: string, id: Pick<Stats, 'dev' | 'ino'>): void => {
    if (this.isPlace(dirPath, id)) throw new ProtectedPlaceError();
  };

  /**
   * True when `dir` is a protected place or lies inside one, judged along its path as given and along its real
   * path (symlinks resolved): by the path and identity of it and of every ancestor up to the filesystem root.
   * Satchel's own `<state>/workspace` and what is below it are not.
   */
  async contains(dir: string): Promise<boolean> {
    await this.fresh();
    const real = await fs.realpath(dir).catch(() => undefined);
    return (await this.chainContains(dir)) || (real !== undefined && (await this.chainContains(real)));
  }

  private async chainContains(start: string): Promise<boolean> {
    const own = this.ownWorkspace();
    const ownId = await fs.stat(own).catch(() => undefined);
    for (let dir = path.resolve(start); ; dir = path.dirname(dir)) {
      const st = await fs.stat(dir).catch(() => undefined);
      if (dir === own || (st && ownId && st.dev === ownId.dev && st.ino === ownId.ino)) return false;
      if (this.isPlace(dir, st)) return true;
      if (path.dirname(dir) === dir) return false;
    }
  }
}
