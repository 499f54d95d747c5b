// The last port the server listened on, kept in its state folder (the desktop window: the user-data folder).
// Reusing it keeps the page's origin (http://127.0.0.1:PORT) stable across launches, and with it the web UI's
// local storage and, for the headless server, an open tab that survives a restart.
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

export const PORT_FILE_NAME = 'last-port.json';
/** A remembered file bigger than this is not ours: ignored rather than parsed. */
export const MAX_PORT_FILE_BYTES = 256;
/** Listen errors after which another port is worth trying; anything else is a real failure. */
export const PORT_UNAVAILABLE_CODES: ReadonlySet<string> = new Set(['EADDRINUSE', 'EACCES', 'EADDRNOTAVAIL']);

export function isValidPort(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 65535;
}

/** The remembered port, or undefined when there is none or the file is unreadable or corrupt. */
export async function readLastPort(dir: string): Promise<number | undefined> {
  let text: string;
  try {
    text = await readFile(path.join(dir, PORT_FILE_NAME), 'utf8');
  } catch {
    return undefined;
  }
  if (text.length > MAX_PORT_FILE_BYTES) return undefined;
  try {
    const port = (JSON.parse(text) as { port?: unknown } | null)?.port;
    return isValidPort(port) ? port : undefined;
  } catch {
    return undefined;
  }
}

/** Write atomically (temp file + rename): a crash mid-write leaves the previous value, never half a file. */
export async function writeLastPort(dir: string, port: number): Promise<void> {
  if (!isValidPort(port)) throw new RangeError(`Not a TCP port: ${port}`);
  await mkdir(dir, { recursive: true });
  const target = path.join(dir, PORT_FILE_NAME);
  const temp = `${target}.${process.pid}.tmp`;
  try {
    await writeFile(temp, JSON.stringify({ port }) + '\n', 'utf8');
    await rename(temp, target);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
}

function errorCode(err: unknown): string | undefined {
  const code = err && typeof err === 'object' ? (err as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : undefined;
}

export function isPortUnavailable(err: unknown): boolean {
  const code = errorCode(err);
  return code !== undefined && PORT_UNAVAILABLE_CODES.has(code);
}

export interface PortStoreHooks {
  /** Told when the remembered port could not be used (logging). */
  onFallback?: (port: number, err: unknown) => void;
  /** Told when the port could not be remembered; the server keeps running regardless. */
  onSaveError?: (err: unknown) => void;
}

/**
 * Start on the remembered port when there is one, else (or when it is taken) on any free port (0), then
 * remember the port actually used.
 */
export async function startOnRememberedPort<T extends { port: number }>(
  dir: string,
  start: (port: number) => Promise<T>,
  hooks: PortStoreHooks = {},
): Promise<T> {
  const remembered = await readLastPort(dir);
  let running: T | undefined;
  if (remembered !== undefined) {
    try {
      running = await start(remembered);
    } catch (err) {
      if (!isPortUnavailable(err)) throw err;
      hooks.onFallback?.(remembered, err);
    }
  }
  running ??= await start(0);
  if (running.port !== remembered) {
    await writeLastPort(dir, running.port).catch((err: unknown) => hooks.onSaveError?.(err));
  }
  return running;
}
