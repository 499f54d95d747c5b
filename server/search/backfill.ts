// The text of attachments stored before the index took it (schema 2 marked each in attachment_text_pending),
// indexed in the background after start, a bounded batch at a time: a start is not held up by reading every
// attachment of a large history (the start budget is 300 ms over an empty state), and a stop or a
// crash halfway loses nothing (the marks of what is left stay; the next start goes on).
import { log } from '../core/log.js';
import type { SessionStore } from '../store/sessions.js';
import { storedAttachmentText } from './attachment-text.js';

/** Attachments read per batch: each batch is one query, then one short transaction per attachment. */
export const BACKFILL_BATCH = 50;
/**
 * Pause between batches: the pass shares the thread pool and the database lock with requests, so it yields
 * for this long after each batch (50 files); a history of 10,000 attachments is done in well under a minute.
 */
export const BACKFILL_PAUSE_MS = 20;

export interface Backfill {
  /** Resolves when every pending attachment is indexed (or the pass stopped). */
  done: Promise<void>;
  stop(): Promise<void>;
}

export function startAttachmentTextBackfill(stateDir: string, sessions: SessionStore): Backfill {
  let stopped = false;
  const run = async (): Promise<void> => {
    while (!stopped) {
      const batch = await sessions.pendingAttachmentTexts(BACKFILL_BATCH);
      if (batch.length === 0) return;
      for (const row of batch) {
        if (stopped) return;
        const text = row.filename === null ? '' : await storedAttachmentText(stateDir, row.session_id, row.filename);
        await sessions.indexAttachmentText(row.session_id, row.path, text, row.position);
      }
      await new Promise((resolve) => setTimeout(resolve, BACKFILL_PAUSE_MS));
    }
  };
  const done = run().catch((err: unknown) => {
    if (!stopped) log.warn('indexing the text of earlier attachments stopped', err);
  });
  return {
    done,
    async stop() {
      stopped = true;
      await done;
    },
  };
}
