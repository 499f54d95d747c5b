// Whether Hermes' gateway may keep a conversation's history itself (docs/spec-notes.md, "Hermes' session
// continuity"). With `X-Hermes-Session-Id: X` the gateway loads the history from its own database under X and
// ignores the history in the body; without it, the body's history is used. So the header may be sent only while
// X's database holds exactly the conversation Satchel shows: after a Stop, a Regenerate, an Edit, an agent
// switch or a restart mid-turn it holds turns Satchel no longer shows, and the whole shown history goes in the
// body instead (no header).
//
// "In step" is tracked with a counter. `_hermes = {id: X, n, base_url}` on the session is bumped at the start of
// every request sent with X (a request that fails or is stopped may still have written to X's database), and an
// answered turn's reply row is marked `_hermes_turn: "X#n"`. X's database holds, in order, the user turn and the
// reply of each request 1..n made with it. The session is in step with X when the conversation Satchel shows (and
// would send) is exactly that: one user row and the reply marked X#k for k = 1..n, nothing else. So any row the
// gateway never received (a note stored while a reply streamed, issue 34; a row of an import) puts it out of step,
// wherever it sits, not only a last row that differs. Both fields are internal: never in a public projection
// (store/sessions.ts INTERNAL_SESSION_FIELDS, INTERNAL_MESSAGE_FIELDS).
import { randomBytes } from 'node:crypto';
import type { Message, Session } from '../store/sessions.js';
import { isArrivalRow } from './arrivals-input.js';
import { sameAgentAddress } from './config.js';
import type { AgentConfig } from './types.js';
import { dialectOf } from './dialect/index.js';

/** The session's field: the Hermes session id in use, how many requests were sent with it, and to which gateway. */
export interface HermesState {
  id: string;
  n: number;
  base_url: string;
}

/** A turn sent with the header: its id, and the mark its answer gets. */
export interface HermesTurn {
  id: string;
  mark: string;
}

/** 4 bytes = 8 hex characters: a fresh id per conversation restart within one Satchel session, never reused. */
export const FRESH_ID_BYTES = 4;

type HermesSession = Session & { _hermes?: unknown };

function stateOf(s: HermesSession): HermesState | undefined {
  const h = s._hermes as Partial<HermesState> | undefined;
  if (!h || typeof h !== 'object') return undefined;
  if (typeof h.id !== 'string' || typeof h.base_url !== 'string' || !Number.isSafeInteger(h.n) || h.n! < 1) return undefined;
  return h as HermesState;
}

function mark(id: string, n: number): string {
  return `${id}#${n}`;
}

/**
 * A Hermes id never used before: this session's id and 8 random hex digits. 30 characters, none of them `/`, `..`
 * or a control character: the gateway refuses those and ids over 256 characters (api_server.py).
 */
export function freshHermesId(sessionId: string, random: () => string = () => randomBytes(FRESH_ID_BYTES).toString('hex')): string {
  return `satchel-${sessionId}-${random()}`;
}

/**
 * Whether `shown` (the rows Satchel shows, arrivals aside) is exactly what the gateway holds under `state.id`: the
 * exchanges of requests 1..n, each its user row then its reply marked with it. A request that left no marked reply
 * (failed, stopped, replaced by Regenerate or Edit) leaves its turn in the gateway and a gap here; a row the
 * gateway never received breaks the pairs. Linear in the rows, once per turn's start: a median of 6 ms for 10,000
 * rows measured on the loaded 2-core test machine (the arrival filter before it already walked them all).
 */
function gatewayHolds(shown: readonly Message[], state: HermesState): boolean {
  if (shown.length !== 2 * state.n) return false;
  for (let k = 1; k <= state.n; k++) {
    const user = shown[2 * k - 2]!;
    const reply = shown[2 * k - 1]!;
    if (user.role !== 'user' || reply.role !== 'assistant' || reply._hermes_turn !== mark(state.id, k)) return false;
  }
  return true;
}

/**
 * How this turn is sent, decided from `s` as it will be sent (its messages are the shown history, without the new
 * user row): a HermesTurn (send the header and only the new user turn; `s._hermes` is bumped here, so call it
 * inside the write that records the pending turn), or undefined (send the whole shown history, no header).
 */
export function beginHermesTurn(s: Session, config: AgentConfig, random?: () => string): HermesTurn | undefined {
  // Without a key on our side the gateway has none either, or refuses us: it answers the header with 403.
  if (!dialectOf(config.kind).keepsHistory || !config.apiKey) return undefined;
  const session = s as HermesSession;
  const state = stateOf(session);
  let id: string;
  // Inbox arrival rows are not in the gateway's database: those since the last turn go with the new user turn
  // (arrivals-input.ts), those before it went with an earlier one. The other rows decide (gatewayHolds).
  const shown = s.messages.filter((m) => !isArrivalRow(m));
  if (shown.length === 0) {
    // Nothing shown: a new id, whose database is empty, is in step (a first turn, or an edit of the first message).
    id = freshHermesId(s.session_id, random);
  } else {
    const inStep = state !== undefined && sameAgentAddress(state.base_url, config.baseUrl) && gatewayHolds(shown, state);
    if (!inStep) return undefined;
    id = state.id;
  }
  const n = id === state?.id ? state.n + 1 : 1;
  session._hermes = { id, n, base_url: config.baseUrl } satisfies HermesState;
  return { id, mark: mark(id, n) };
}

/**
 * An answered turn's reply row (not yet stored) gets the turn's mark: the gateway's database ends with it now. A
 * reply Satchel cut at its bound is not what the gateway stored: left unmarked, the next turn sends the history.
 */
export function markHermesAnswer(row: Message, turn: HermesTurn | undefined, cut: boolean): void {
  if (turn && !cut) row._hermes_turn = turn.mark;
}
