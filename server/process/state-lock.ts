// One owner per state folder. Two servers on one folder each kept their own copy of every session and wrote over
// each other's rows (issue 33, finding 1), so the first server holds an exclusive OS lock on its folder for its
// whole life and a second one refuses, naming the first one's address.
//
// The lock is SQLite's own: a tiny database `instance.lock` in the state folder, opened in EXCLUSIVE locking mode
// and written once, so the connection keeps its file lock until it closes. On Unix that is an fcntl lock, on
// Windows LockFileEx: both belong to the process and go with it, so a crash or a kill -9 never leaves the folder
// locked (no pid file to go stale). SQLite tracks its locks per file inside a process too, so a second claim in the
// same process (a test, a restart before the first closed) is refused the same way. Nothing else in Satchel opens
// that file: on Unix, closing any other descriptor of it would drop the process's fcntl lock.
//
// Beside it, `instance.json` (0600) says where the owner listens: its address, and its launch token so the desktop
// window can open that server instead of starting a second one. The state folder is Satchel's own (0700, refused
// as a workspace and to "Open with"), as for `mcp-token` and `agent.json`. The owner removes a stale one as soon as
// it holds the lock, writes it once it listens and removes it when it stops; a crash may leave it, but then no lock
// is held and the next owner replaces it, so while the lock is held the file can only be the holder's.
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type sqlite3Types from 'sqlite3';
import { guardLockedFile } from '../store/never-open.js';

const sqlite3 = createRequire(import.meta.url)('sqlite3') as typeof sqlite3Types;

export const STATE_LOCK_FILE = 'instance.lock';
export const INSTANCE_FILE = 'instance.json';
/**
 * How long a second start waits for the owner to say its address: the owner writes it only once it listens, and a
 * first start over a long history (moving JSON sessions into the database) can take tens of seconds. 10 s covers an
 * ordinary start; past it the refusal says the owner is still starting.
 */
export const ADDRESS_WAIT_MS = 10_000;
/** How often a second start looks again for the address (and for a lock the owner let go meanwhile). */
export const ADDRESS_POLL_MS = 100;
/** An instance file bigger than this is not ours: ignored rather than parsed. */
export const MAX_INSTANCE_FILE_BYTES = 4096;
/** A launch token longer than this is not one Satchel wrote (TOKEN_BYTES base64url is 43 characters). */
const MAX_TOKEN_CHARS = 1024;

/** The server that owns a state folder: where it listens, and its launch token. */
export interface RunningInstance {
  /** `http://host:port/` */
  url: string;
  token: string;
}

/** The one sentence a second start refuses with (README "Starting"). */
export function alreadyRunningText(stateDir: string, url: string | undefined): string {
  return url
    ? `Satchel is already running on this state folder (${stateDir}): ${url}`
    : `Satchel is already running on this state folder (${stateDir}) and is still starting`;
}

/** Another server owns the state folder; `instance` is where it listens, when it has said so. */
export class StateFolderInUse extends Error {
  constructor(
    readonly stateDir: string,
    readonly instance: RunningInstance | undefined,
  ) {
    super(alreadyRunningText(stateDir, instance?.url));
    this.name = 'StateFolderInUse';
  }
}

export interface StateLock {
  readonly stateDir: string;
  /** Say where this owner listens (instance.json), once it does. */
  announce(instance: RunningInstance): Promise<void>;
  /** Remove instance.json and let go of the lock. Idempotent. */
  release(): Promise<void>;
}

function openDb(file: string): Promise<sqlite3Types.Database> {
  return new Promise((resolve, reject) => {
    const db: sqlite3Types.Database = new sqlite3.Database(file, sqlite3.OPEN_READWRITE | sqlite3.OPEN_CREATE, (err) => (err ? reject(err) : resolve(db)));
  });
}

function exec(db: sqlite3Types.Database, sql: string): Promise<void> {
  return new Promise((resolve, reject) => db.exec(sql, (err) => (err ? reject(err) : resolve())));
}

function closeDb(db: sqlite3Types.Database): Promise<void> {
  return new Promise((resolve) => db.close(() => resolve()));
}

/**
 * The lock's connection, or undefined when another holds it. No busy timeout: a held lock is refused at once.
 * journal_mode OFF: nothing is ever written that needs rolling back, and a kill leaves no journal beside it.
 */
async function tryLock(file: string): Promise<sqlite3Types.Database | undefined> {
  const db = await openDb(file);
  // node-sqlite3 waits 1 s for a busy lock by default.
  db.configure('busyTimeout', 0);
  try {
    await exec(db, 'PRAGMA journal_mode = OFF; PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; COMMIT;');
    return db;
  } catch (err) {
    await closeDb(db);
    if ((err as { code?: unknown }).code === 'SQLITE_BUSY') return undefined;
    throw err;
  }
}

/** The owner's instance file, or undefined when there is none or it is not one Satchel wrote. */
export async function readInstance(stateDir: string): Promise<RunningInstance | undefined> {
  let text: string;
  try {
    const handle = await fs.open(path.join(stateDir, INSTANCE_FILE), constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      const { size } = await handle.stat();
      if (size > MAX_INSTANCE_FILE_BYTES) return undefined;
      text = await handle.readFile('utf8');
    } finally {
      await handle.close();
    }
  } catch {
    return undefined;
  }
  try {
    const parsed = JSON.parse(text) as { url?: unknown; token?: unknown } | null;
    const { url, token } = parsed ?? {};
    if (typeof url !== 'string' || typeof token !== 'string') return undefined;
    const u = new URL(url);
    const plain = u.protocol === 'http:' && u.pathname === '/' && !u.search && !u.hash && !u.username && !u.password && u.href === url;
    if (!plain || token.length === 0 || token.length > MAX_TOKEN_CHARS || /[\s\u0000-\u001f\u007f]/.test(token)) return undefined;
    return { url, token };
  } catch {
    return undefined;
  }
}

/** Write instance.json whole (a temporary file renamed in), readable by this user only. */
async function writeInstance(stateDir: string, instance: RunningInstance): Promise<void> {
  const target = path.join(stateDir, INSTANCE_FILE);
  const temp = `${target}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await fs.writeFile(temp, `${JSON.stringify(instance)}\n`, { mode: 0o600, flag: 'wx' });
    await fs.rename(temp, target);
  } catch (err) {
    await fs.rm(temp, { force: true });
    throw err;
  }
}

export interface ClaimOptions {
  /** How long to wait for a running owner's address (ADDRESS_WAIT_MS). */
  addressWaitMs?: number;
}

/**
 * Take the state folder for this process (creating the folder, 0700, when absent), or throw StateFolderInUse
 * naming the owner's address. While the owner has not said its address yet, keep looking (and keep trying the lock,
 * which an owner on its way out lets go) for up to `addressWaitMs`.
 */
export async function claimStateFolder(stateDir: string, opts: ClaimOptions = {}): Promise<StateLock> {
  await fs.mkdir(stateDir, { recursive: true, mode: 0o700 });
  const file = path.join(stateDir, STATE_LOCK_FILE);
  const deadline = Date.now() + (opts.addressWaitMs ?? ADDRESS_WAIT_MS);
  for (;;) {
    const db = await tryLock(file);
    if (db) return ownedLock(stateDir, db);
    const instance = await readInstance(stateDir);
    if (instance || Date.now() >= deadline) throw new StateFolderInUse(stateDir, instance);
    await new Promise((resolve) => setTimeout(resolve, ADDRESS_POLL_MS));
  }
}

async function ownedLock(stateDir: string, db: sqlite3Types.Database): Promise<StateLock> {
  let unguard = (): void => {};
  try {
    // Closing any descriptor of the lock file in this process would drop the lock: never open it elsewhere.
    unguard = guardLockedFile(await fs.stat(path.join(stateDir, STATE_LOCK_FILE)));
    // Left by an owner that crashed: it names no running server.
    await fs.rm(path.join(stateDir, INSTANCE_FILE), { force: true });
  } catch (err) {
    unguard();
    await closeDb(db);
    throw err;
  }
  let announced = false;
  let released: Promise<void> | undefined;
  return {
    stateDir,
    async announce(instance) {
      if (released) return;
      await writeInstance(stateDir, instance);
      announced = true;
    },
    release() {
      released ??= (async () => {
        // The file first: while the lock is held, instance.json may only name its holder.
        if (announced) await fs.rm(path.join(stateDir, INSTANCE_FILE), { force: true }).catch(() => {});
        await closeDb(db);
        unguard();
      })();
      return released;
    },
  };
}
