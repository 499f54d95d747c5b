// "Open with Satchel" / "Send to Satchel": which paths, from a second instance's arguments (Windows, Linux,
// the .desktop entry's %F) or macOS' open-file, are files to hand to the Inbox conversation. Only existing
// regular files and folders, made absolute against the launching process' folder; never a flag, never a URL;
// at most MAX_OPEN_PATHS at once. The delivery itself (the server's upload path) is injected.
import type { Stats } from 'node:fs';
import path from 'node:path';
import { FLAG_SETTING_NAMES, SETTINGS } from '../server/settings/table.js';

/** As many as one message may carry (docs/API.md: attachments ≤ 100); a larger selection is cut, and said so. */
export const MAX_OPEN_PATHS = 100;
/** Longer than any real path (PATH_MAX is 4096 on Linux): refused before the disk is asked. */
export const MAX_OPEN_PATH_CHARS = 4096;
/** A scheme of two or more letters (`file:`, `https:`, `satchel:`); one letter is a Windows drive (C:\…). */
const URL_LIKE = /^[A-Za-z][A-Za-z0-9+.-]+:/;

export interface OpenPathsDeps {
  /** fs.promises.realpath */
  realpath: (p: string) => Promise<string>;
  /** fs.promises.stat (of the real path) */
  stat: (p: string) => Promise<Pick<Stats, 'isFile' | 'isDirectory'>>;
}

export interface OpenPathsResult {
  /** Real, absolute paths of regular files and folders, in the order given, each once. */
  accepted: string[];
  refused: Array<{ path: string; reason: 'flag' | 'url' | 'not-absolute' | 'missing' | 'not-file-or-folder' | 'too-many' | 'invalid' }>;
}

/**
 * The arguments after the executable (and, unpackaged, after the app folder `electron .` runs): what a second
 * instance was asked to open. Everything after a `--` is a path even if it starts with '-'.
 */
export function pathArguments(argv: readonly string[], isPackaged: boolean): string[] {
  const rest = argv.slice(isPackaged ? 1 : 2);
  const end = rest.indexOf('--');
  const before = end < 0 ? rest : rest.slice(0, end);
  // Flags stay in (acceptOpenPaths refuses them; Chromium adds its own switches to a second instance's argv),
  // but the value after one of Satchel's value flags (`--port 8123`, `--state-dir D`) is not a file to open.
  const options = before.filter((arg, i) => !(i > 0 && VALUE_FLAGS.has(before[i - 1]!) && !arg.startsWith('--')));
  if (end < 0) return options;
  return [...options, ...rest.slice(end + 1).map((a) => (a.startsWith('-') ? `./${a}` : a))];
}

/** The flags that take a value (server/settings/args.ts reads the same table column). */
const VALUE_FLAGS = new Set<string>(FLAG_SETTING_NAMES.map((name) => SETTINGS[name].flag));

export async function acceptOpenPaths(candidates: readonly string[], cwd: string, deps: OpenPathsDeps): Promise<OpenPathsResult> {
  const result: OpenPathsResult = { accepted: [], refused: [] };
  const seen = new Set<string>();
  for (const candidate of candidates) {
    if (typeof candidate !== 'string' || candidate === '' || candidate.includes('\0') || candidate.length > MAX_OPEN_PATH_CHARS) {
      result.refused.push({ path: String(candidate).slice(0, 200), reason: 'invalid' });
      continue;
    }
    if (candidate.startsWith('-')) {
      result.refused.push({ path: candidate, reason: 'flag' });
      continue;
    }
    if (URL_LIKE.test(candidate)) {
      result.refused.push({ path: candidate, reason: 'url' });
      continue;
    }
    if (!path.isAbsolute(candidate) && !path.isAbsolute(cwd)) {
      result.refused.push({ path: candidate, reason: 'not-absolute' });
      continue;
    }
    const absolute = path.resolve(cwd, candidate);
    const real = await deps.realpath(absolute).catch(() => undefined);
    const stat = real === undefined ? undefined : await deps.stat(real).catch(() => undefined);
    if (real === undefined || !stat) {
      result.refused.push({ path: absolute, reason: 'missing' });
      continue;
    }
    if (!stat.isFile() && !stat.isDirectory()) {
      result.refused.push({ path: absolute, reason: 'not-file-or-folder' });
      continue;
    }
    if (seen.has(real)) continue;
    if (result.accepted.length >= MAX_OPEN_PATHS) {
      result.refused.push({ path: absolute, reason: 'too-many' });
      continue;
    }
    seen.add(real);
    result.accepted.push(real);
  }
  return result;
}

/** Hands accepted paths on: to the Inbox conversation's upload path (injected; server/inbox/session.ts). */
export type DeliverPaths = (paths: string[]) => Promise<{ sessionId?: string } | void>;

/**
 * Paths arrive before the server is up (macOS sends open-file before 'ready' for the file that launched the
 * app): they wait here and go once start() is called; afterwards each batch goes at once. Batches are
 * delivered one after another, in order, so two quick "Open with" land as two uploads in that order.
 */
export class OpenPathQueue {
  private pending: Array<{ paths: string[]; cwd: string }> = [];
  private started = false;
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly deps: OpenPathsDeps & {
      deliver: DeliverPaths;
      onDelivered?: (result: { sessionId?: string } | void, accepted: string[]) => void;
      onRefused?: (refused: OpenPathsResult['refused']) => void;
      onError?: (err: unknown) => void;
    },
  ) {}

  add(paths: readonly string[], cwd: string): void {
    if (paths.length === 0) return;
    // Never hold more than one batch's worth of raw arguments while waiting for the server.
    const batch = { paths: paths.slice(0, MAX_OPEN_PATHS * 2), cwd };
    if (!this.started) this.pending.push(batch);
    else this.enqueue(batch);
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    for (const batch of this.pending.splice(0)) this.enqueue(batch);
  }

  /** Settles when every batch given so far has been delivered (or failed). */
  idle(): Promise<void> {
    return this.chain;
  }

  private enqueue(batch: { paths: string[]; cwd: string }): void {
    this.chain = this.chain.then(async () => {
      try {
        const { accepted, refused } = await acceptOpenPaths(batch.paths, batch.cwd, this.deps);
        if (refused.length > 0) this.deps.onRefused?.(refused);
        if (accepted.length === 0) return;
        // Delivered first, then reported: `onDelivered?.(await deliver())` would skip the delivery without a listener.
        const delivered = await this.deps.deliver(accepted);
        this.deps.onDelivered?.(delivered, accepted);
      } catch (err) {
        this.deps.onError?.(err);
      }
    });
  }
}
