// One mode for every file Satchel stores (uploads, attachments, sidecars): the usual mode for a document,
// 0644, with the user's umask applied, as any program that creates a file with 0644 gets. A hard link from
// staging keeps the staged file's mode (0600: staging is private), so placement sets this mode explicitly.
import fs from 'node:fs';

export const STORED_FILE_MODE = 0o644;
/** Where Linux reports a process's umask without changing it. */
const PROC_STATUS = '/proc/self/status';

let cached: number | undefined;

/** The umask of this process. Read once: the server never changes it. */
export function currentUmask(): number {
  if (cached !== undefined) return cached;
  cached = fromProcStatus() ?? readUmaskBySetting();
  return cached;
}

function fromProcStatus(): number | undefined {
  try {
    const match = /^Umask:\s*([0-7]+)$/m.exec(fs.readFileSync(PROC_STATUS, 'utf8'));
    return match ? parseInt(match[1]!, 8) : undefined;
  } catch {
    return undefined;
  }
}

// Elsewhere (macOS, Windows) the only way is to set and restore it; done once, before any upload is stored.
function readUmaskBySetting(): number {
  const mask = process.umask(0);
  process.umask(mask);
  return mask;
}

/** STORED_FILE_MODE with the umask applied. */
export function storedFileMode(): number {
  return STORED_FILE_MODE & ~currentUmask();
}
