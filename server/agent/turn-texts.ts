// What a turn says in words: the texts of its refusals, its cancel and its failures, as frames and stored rows
// carry them.
import { SETTINGS } from '../settings/table.js';
import type { StoppedBy } from '../core/wire.js';
import { CHAT_AGENT_SETTINGS } from './upstream-errors.js';

/** "30 min", "90 s", "1.5 s": a turn deadline as the error says it. */
export function durationText(ms: number): string {
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000} min`;
  return `${Math.round(ms / 100) / 10} s`;
}
/** The error of a turn past SATCHEL_AGENT_TURN_MAX_MS (its `apperror` frame and the stored `**Error:**` row). */
export function turnDeadlineText(ms: number): string {
  return `The agent did not finish within ${durationText(ms)}.`;
}
export const TURN_DEADLINE_HINT = `Ask for less in one turn, or raise ${SETTINGS.agentTurnMaxMs.env}.`;

export const NO_AGENT = 'No agent is configured';
export const NO_AGENT_HINT = `Connect one in ${CHAT_AGENT_SETTINGS}, or start Satchel with ${SETTINGS.agentBaseUrl.env}.`;
export { SESSION_BUSY as ACTIVE_STREAM } from '../store/versions.js';
/** The `cancel` frame's message (agent.md fixes the person's); the stored row is `**Task cancelled:** <it>`. */
export const CANCELLED_BY_USER = 'Cancelled by user';
export const CANCELLED_BY_STOP = 'Satchel stopped while the agent was answering';
export const CANCELLED_TEXT: Record<StoppedBy, string> = { user: CANCELLED_BY_USER, shutdown: CANCELLED_BY_STOP };
/** A turn found unfinished at start (a crash, a kill): its stored row is `**Interrupted:** <this>`. */
export const INTERRUPTED = 'Satchel stopped before the agent finished answering.';
/** An answer that arrived whole but could not be written. */
export const NOT_SAVED_DISK_FULL = 'The answer could not be saved: the disk is full.';
export const NOT_SAVED = 'The answer could not be saved.';
export const DISK_FULL_HINT = 'Free some disk space, then try again.';
export const NOTHING_TO_REGENERATE = 'Nothing to regenerate: the session has no message';
