// The sweep of abandoned uploads: a file uploaded into a session but never sent, and no longer in that
// session's draft, is removed once it is a week old (at start-up, then periodically). Without it every reload
// before drafts existed, and every chip forgotten in a closed window, would keep its bytes forever.
import fs from 'node:fs/promises';
import { log } from '../core/log.js';
import type { SessionStore } from '../store/sessions.js';
import { removeUnsentAttachment, sentPaths } from './remove.js';
import { readDraft } from './store.js';
import { captureKeeps } from './capture.js';

/** An unsent upload outside any draft is kept this long after it was stored. */
export const UNSENT_ATTACHMENT_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;
/** How often a running server sweeps again (the first sweep runs at start-up). */
export const ATTACHMENT_SWEEP_INTERVAL_MS = 6 * 60 * 60 * 1000;

export interface SweepOptions {
  /** The clock (tests move it forward). */
  now?: () => number;
  maxAgeMs?: number;
}

/** Remove every abandoned upload of every session; returns how many went. One failure never stops the rest. */
export async function sweepUnsentAttachments(stateDir: string, sessions: SessionStore, opts: SweepOptions = {}): Promise<number> {
  const now = (opts.now ?? Date.now)();
  const maxAge = opts.maxAgeMs ?? UNSENT_ATTACHMENT_MAX_AGE_MS;
  let removed = 0;
  // The quick-capture window's staged uploads are a draft too (capture.ts).
  const captured = await captureKeeps(stateDir);
  // Only sessions with uploads are read whole (the others' messages stay on disk).
  for (const listed of sessions.list().filter((s) => s.attachment_count > 0)) {
    const draft = await readDraft(stateDir, listed.session_id);
    const keep = new Set([...draft.attachments.map((a) => a.path), ...(captured.get(listed.session_id) ?? [])]);
    const uploads = (await sessions.get(listed.session_id))?.attachments ?? [];
    for (const a of uploads) {
      // Read fresh each time: a message sent meanwhile makes the file one to keep.
      const session = await sessions.get(listed.session_id);
      if (!session || keep.has(a.path) || sentPaths(session).has(a.path)) continue;
      // The file's own time says when it was stored; a file already gone leaves only a record to drop.
      const stat = await fs.lstat(a.path).catch(() => undefined);
      if (stat && now - stat.mtimeMs < maxAge) continue;
      try {
        await removeUnsentAttachment(stateDir, sessions, session, a.path);
        removed++;
      } catch (err) {
        log.warn('could not remove an abandoned attachment', err);
      }
    }
  }
  if (removed > 0) log.info(`removed ${removed} attachment(s) never sent and in no draft for ${Math.round(maxAge / 86_400_000)} days`);
  return removed;
}

/** Sweep now and then every `intervalMs` until stop() (which waits for a sweep under way). */
export function startAttachmentSweep(
  stateDir: string,
  sessions: SessionStore,
  opts: SweepOptions & { intervalMs?: number } = {},
): { stop(): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  const run = (): void => {
    running = running.then(() => sweepUnsentAttachments(stateDir, sessions, opts)).catch((err: unknown) => log.warn('attachment sweep failed', err));
  };
  run();
  const timer = setInterval(run, opts.intervalMs ?? ATTACHMENT_SWEEP_INTERVAL_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
