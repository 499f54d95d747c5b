// What each stored row of the thread offers (Edit, Regenerate, a version switcher, the last reply's usage) and
// when a drawn row must be drawn again: pure decisions over the rows and the page's state, apart from
// thread-view.ts, which draws and places the rows, so they are tested in node (thread-rows.test.ts).
import { visibleRows, type MessageRow } from './message-rows.js';
import { turnRunning, type AppState } from './store.js';
import { switcherPlaces, versionText, type SwitcherPlace } from './version-switcher.js';

/** A stored row's identity: rows are appended, or a version replaced from some row on (new times, new versions). */
export function rowKey(sessionId: string, index: number, r: MessageRow): string {
  return [sessionId, index, r.role, r.time ?? '', r.text.length, r.partial, r.error, r.attachments.length, r.versions ? versionText(r.versions) : ''].join('|');
}

/** What every row's actions depend on, from the state the rows were last drawn from. */
export interface RowContext {
  sessionId: string;
  busy: boolean;
  canAsk: boolean;
  editing: number | null;
  outcome: AppState['outcome'];
  switchers: Map<number, SwitcherPlace>;
}

export const NO_ROWS: RowContext = { sessionId: '', busy: false, canAsk: false, editing: null, outcome: null, switchers: new Map() };

/** The context of `rows` (the session's visible rows) in `state`; `busy`: a turn runs in it. */
export function rowContext(state: AppState, rows: readonly MessageRow[], busy: boolean): RowContext {
  const id = state.session?.session_id ?? '';
  return {
    sessionId: id,
    busy,
    canAsk: state.agentReady,
    editing: state.editing?.sessionId === id ? state.editing.index : null,
    outcome: state.outcome?.sessionId === id ? state.outcome : null,
    switchers: switcherPlaces(rows),
  };
}

/** What row `i` of `count` offers. */
export interface RowOffer {
  /** The conversation's last row. */
  last: boolean;
  /** Edit: a message of the person's, while no turn runs. */
  edit: boolean;
  /** Regenerate: the last row, a reply, while no turn runs and an agent is set. */
  regenerate: boolean;
  /** The version switcher this row shows: the person's message it switches from, and which level; if any. */
  fork: SwitcherPlace | undefined;
}

export function rowOffer(context: RowContext, i: number, count: number, r: MessageRow): RowOffer {
  const last = i === count - 1;
  return {
    last,
    edit: r.role === 'user' && !context.busy,
    regenerate: r.role !== 'user' && last && !context.busy && context.canAsk,
    fork: context.switchers.get(i),
  };
}

/** The key and what the row offers (Edit, Regenerate, the last outcome): a change rebuilds this row only. */
export function rowSignature(context: RowContext, i: number, count: number, key: string, r: MessageRow): string {
  const { edit, regenerate, fork, last } = rowOffer(context, i, count, r);
  const said = r.role !== 'user' && last ? [context.outcome?.usage] : [];
  return JSON.stringify([key, edit, regenerate, said, fork && [fork.fork.index, fork.level.versions, versionText(fork.level)], context.busy, context.editing === r.index]);
}

/** Regenerate is offered (the thread's button, the shortcut): an agent, no turn running, and the last row is a reply. */
export function canRegenerate(state: AppState): boolean {
  const { session, agentReady } = state;
  if (!session || !agentReady || turnRunning(state) || session.active_stream_id) return false;
  const rows = visibleRows(session.messages);
  return rows.length > 0 && rows[rows.length - 1]!.role !== 'user';
}
