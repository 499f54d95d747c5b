// Files that run outside the main thread (worker entries and what they load) are unpacked from app.asar by
// electron-builder (`asarUnpack`), so they load with Node's own file system, without Electron's asar support,
// which ES-module workers do not have proven. Code inside the asar still sees its own paths as
// `…/app.asar/…`; this maps such a path to its unpacked copy.
import { existsSync } from 'node:fs';
import path from 'node:path';

const ASAR = 'app.asar';
const UNPACKED = 'app.asar.unpacked';

/**
 * `file` with its `app.asar` folder replaced by `app.asar.unpacked` when that unpacked copy exists; otherwise
 * `file` unchanged (a development checkout, or a file that was not unpacked).
 */
export function unpackedPath(file: string, exists: (p: string) => boolean = existsSync): string {
  const parts = file.split(/([\\/])/);
  const at = parts.lastIndexOf(ASAR);
  if (at === -1) return file;
  const candidate = [...parts.slice(0, at), UNPACKED, ...parts.slice(at + 1)].join('');
  return exists(candidate) ? candidate : file;
}
