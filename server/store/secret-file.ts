// A small secret kept in a file of its own (mode 0600): read without following a symlink and only when it is
// a regular file within a cap, written atomically (write-then-rename replaces a symlink instead of following
// it). Shared by the MCP token's file (mcp/token.ts) and the desktop app's encrypted secrets
// (main/secret-file-store.ts).
import fs from 'node:fs';
import path from 'node:path';
import type { SecretStore } from '../agent/secret-store.js';
import { writeFileAtomic } from './atomic.js';

/** A secret (or its encrypted form) is a few hundred bytes: a file bigger than this is not ours. */
export const MAX_SECRET_FILE_BYTES = 64 * 1024;

/** The file's bytes; undefined when it is not a regular file within the cap. No symlink is followed; ENOENT throws. */
export function readSmallFile(file: string, maxBytes = MAX_SECRET_FILE_BYTES): Buffer | undefined {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0));
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile() || stat.size > maxBytes) return undefined;
    return fs.readFileSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** Writes the bytes atomically with mode 0600, creating the state folder (0700) when needed. */
export async function writeSecretFile(file: string, data: string | Buffer): Promise<void> {
  await fs.promises.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await writeFileAtomic(file, data);
}

/** How a secret becomes the file's bytes and back: text by default, encrypted in the desktop app. */
export interface SecretCodec {
  encode(value: string): string | Buffer;
  /** Throws when the bytes are not a secret it can read. */
  decode(bytes: Buffer): string;
  /** What `onUnreadable` hears when decode throws. */
  undecodable: string;
}

const TEXT: SecretCodec = {
  encode: (value) => value + '\n',
  decode: (bytes) => bytes.toString('utf8').trim(),
  undecodable: 'is not text',
};

/**
 * The secret in its own file. A file that is missing, unreadable, a symlink, oversized or undecodable holds
 * no secret (`onUnreadable` hears why, never the value); undefined removes the file.
 */
export function fileSecretStore(file: string, onUnreadable: (why: string) => void = () => {}, codec: SecretCodec = TEXT): SecretStore {
  return {
    get() {
      let bytes: Buffer | undefined;
      try {
        bytes = readSmallFile(file);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') onUnreadable('is unreadable');
        return undefined;
      }
      if (!bytes) {
        onUnreadable(`is not a regular file under ${MAX_SECRET_FILE_BYTES} bytes`);
        return undefined;
      }
      try {
        return codec.decode(bytes) || undefined;
      } catch {
        onUnreadable(codec.undecodable);
        return undefined;
      }
    },
    async set(value) {
      if (!value) await fs.promises.rm(file, { force: true });
      else await writeSecretFile(file, codec.encode(value));
    },
  };
}
