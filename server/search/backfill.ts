// The text of attachments no upload indexed: those stored before the index took it (schema 2 marked each), and
// those stored by another path (an imported conversation, an image or an Office file whose text comes later),
// each marked in attachment_text_pending as it is stored. Indexed in the background, a bounded batch at a time:
// a start is not held up by reading every attachment of a large history (the start budget is 300 ms over
// an empty state), and a stop or a crash halfway loses nothing (the marks of what is left stay).
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
/**
 * How often the pass looks for new marks once none is left: an imported conversation's files are searchable
 * within this long; one indexed query on an empty table every 2 s costs nothing.
 */
export const BACKFILL_IDLE_MS = 2_000;

export interface Backfill {
  /** Resolves the first time no attachment is left to index (or the pass stopped). */
  idle: Promise<void>;
  stop(): Promise<void>;
}

export function startAttachmentTextBackfill(stateDir: string, sessions: SessionStore): Backfill {
  const stopping = new AbortController();
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      // Each pause's listener goes with it: the loop pauses every few seconds for the server's lifetime, and
      // listeners left on the signal would pile up (Node warns past 10).
      const onAbort = () => (clearTimeout(timer), resolve());
      const timer = setTimeout(() => {
        stopping.signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      stopping.signal.addEventListener('abort', onAbort, { once: true });
    });
  let drained!: () => void;
  const idle = new Promise<void>((resolve) => (drained = resolve));
  const run = async (): Promise<void> => {
    while (!stopping.signal.aborted) {
      const batch = await sessions.pendingAttachmentTexts(BACKFILL_BATCH);
      if (batch.length === 0) {
        drained();
        await pause(BACKFILL_IDLE_MS);
        continue;
      }
      for (const row of batch) {
        if (stopping.signal.aborted) return;
        const text = row.filename === null ? '' : await storedAttachmentText(stateDir, row.session_id, row.filename);
        // No text read back (audio, a PDF, an image) leaves what a turn indexed of it: only the mark goes.
        await sessions.indexAttachmentText(row.session_id, text === '' ? null : row.path, text, row.position);
      }
      await pause(BACKFILL_PAUSE_MS);
    }
  };
  const done = run().catch((err: unknown) => {
    if (!stopping.signal.aborted) log.warn('indexing the text of attachments stopped', err);
  });
  return {
    idle: Promise.race([idle, done]),
    async stop() {
      stopping.abort();
      await done;
    },
  };
}
