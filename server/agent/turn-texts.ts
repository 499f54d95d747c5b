// What a turn says in words: the texts of its refusals, its cancel and its failures, as frames and stored rows
// carry them.
import { SETTINGS } from '../settings/table.js';

/** "30 min", "90 s", "1.5 s": a turn deadline as the error says it. */
export function durationText(ms: number): string {
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000} min`;
  return `${Math.round(ms / 100) / 10} s`;
}
/** The error of a turn past SATCHEL_AGENT_TURN_MAX_MS (its `apperror` frame and the stored `**Error:**` row). */
export function turnDeadlineText(ms: number): string {
  return `The agent did not finish within ${durationText(ms)}`;
}
export const TURN_DEADLINE_HINT = `Ask for less in one turn, or raise ${SETTINGS.agentTurnMaxMs.env}.`;

export const NO_AGENT = 'No agent is configured';
export const NO_AGENT_HINT =
  'Set one in Settings → Agent, or start Satchel with SATCHEL_AGENT_BASE_URL (and SATCHEL_AGENT_API_KEY, SATCHEL_AGENT_MODEL).';
export { SESSION_BUSY as ACTIVE_STREAM } from '../store/versions.js';
export const CANCELLED_BY_USER = 'Cancelled by user';
export const CANCELLED_BY_STOP = 'Satchel stopped while the agent was answering';
export const NOTHING_TO_REGENERATE = 'Nothing to regenerate: the session has no message';
