// What arrives in the Inbox (a watched folder, "Open with") is prepared while nobody looks: the agent's view of
// each file (attachments/agent-view.ts: an Office file's text, an audio file's transcript, a scan's OCR) is
// computed in the background and kept in its sidecar, so the chip is ready when the person opens the Inbox and
// a question about the files does not wait for a minute of transcription. One file at a time: the chips and
// turns the person is waiting for keep the other computation slot.
import type { App } from '../app.js';
import { agentView } from '../attachments/agent-view.js';
import { log } from '../core/log.js';
import { isInboxSession } from './session.js';

/**
 * Arrivals waiting to be prepared. A burst beyond this (a thousand files dropped into a watched folder) drops
 * the oldest from the queue: they are prepared when a chip or a turn asks, as any other file is.
 */
export const MAX_PENDING_PREPARATIONS = 500;

interface Pending {
  profile: string;
  sessionId: string;
  name: string;
}

export interface ArrivalPreparation {
  /** Resolves once nothing is queued or running (tests). */
  idle(): Promise<void>;
  stop(): void;
}

export function startArrivalPreparation(app: App): ArrivalPreparation {
  const queue: Pending[] = [];
  let running: Promise<void> | undefined;

  const drain = (): void => {
    if (running || queue.length === 0 || app.stopping.aborted) return;
    running = (async () => {
      while (queue.length > 0 && !app.stopping.aborted) {
        const next = queue.shift()!;
        try {
          const session = await app.sessions.get(next.sessionId);
          // Gone, or no longer the Inbox (deleted meanwhile): nothing to prepare.
          if (!session || !(await isInboxSession(app, next.profile, next.sessionId))) continue;
          await agentView(app, session, next.name);
        } catch (err) {
          // Removed before its turn (404), or a reader failed: the chip says so when it asks; never a crash.
          log.debug('inbox: an arrival could not be prepared', err);
        }
      }
    })().finally(() => {
      running = undefined;
      drain();
    });
  };

  const unsubscribe = app.events.observe((event) => {
    if (event.name !== 'attachment_added' || !('attachment' in event.data)) return;
    queue.push({ profile: event.profile, sessionId: event.data.session_id, name: event.data.attachment.filename });
    if (queue.length > MAX_PENDING_PREPARATIONS) queue.shift();
    drain();
  });

  return {
    async idle() {
      while (running) await running;
    },
    stop() {
      unsubscribe();
      queue.length = 0;
    },
  };
}
