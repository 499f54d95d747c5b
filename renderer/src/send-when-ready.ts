// Enter (or Send) pressed while the composer's files are still uploading: the message is queued, said under the
// box, and sent the moment the last upload ends (issue 38: it was dropped silently). Pure decisions here; the
// composer carries them out. What is sent is what the box holds then, so words typed meanwhile go too.
import type { Chip } from './store.js';

export const NOT_SENT_UPLOAD_FAILED = 'Not sent: a file did not upload. Remove it or attach it again, then send.';

/** The chips still on their way (uploading, waiting to, or being extracted): the message waits for them. */
export function pendingUploads(chips: readonly Chip[]): number {
  return chips.filter((c) => c.status === 'uploading' || c.status === 'queued' || c.extract?.status === 'running').length;
}

/** What a queued send does now: wait, go, or give up because an upload failed (nothing is sent without it). */
export function queuedSendStep(chips: readonly Chip[]): 'wait' | 'send' | 'failed' {
  if (pendingUploads(chips) > 0) return 'wait';
  return chips.some((c) => c.status === 'error') ? 'failed' : 'send';
}

/** The line under the box while a send waits. */
export function queuedSendText(chips: readonly Chip[]): string {
  return pendingUploads(chips) === 1 ? 'Queued: sends when the upload finishes.' : 'Queued: sends when the uploads finish.';
}
