// The quick-capture page as data: what it holds (text, staged chips, the destination) and what follows from it
// (whether Send may go, what is sent, what the server keeps as the draft). The view (capture.ts) only draws it.
import type { CaptureDestination, CaptureView } from './api.js';
import { storedChip } from './composer-draft.js';
import { storedUpload } from './composer-chips.js';
import type { Chip } from './store.js';

export interface CaptureState {
  text: string;
  destination: CaptureDestination;
  /** The conversation `current` sends to (`busy`: a reply is being written there). */
  current: { session_id: string; title: string; busy?: boolean } | null;
  /** The Inbox conversation can be sent to. */
  inbox: boolean;
  /** The conversation the chips' uploads are stored in (null until the first one is). */
  staging: string | null;
  chips: readonly Chip[];
  sending: boolean;
  /** What the last send did, or why it failed. */
  notice: { kind: 'info' | 'error'; text: string } | null;
  /** Where "Ask the agent" asks: a new conversation, or the current one (a turn there; issue 38). */
  askIn: AskIn;
}

export type AskIn = 'new' | 'current';

export const EMPTY_CAPTURE: CaptureState = { text: '', destination: 'current', current: null, inbox: false, staging: null, chips: [], sending: false, notice: null, askIn: 'new' };

/** Where Ask goes now: the current conversation only while there is one. */
export function askInCurrent(state: Pick<CaptureState, 'destination' | 'askIn' | 'current'>): boolean {
  return state.destination === 'ask' && state.askIn === 'current' && state.current !== null;
}

export const DESTINATION_LABELS: Readonly<Record<CaptureDestination, string>> = {
  current: 'Current conversation',
  inbox: 'Inbox',
  ask: 'Ask the agent',
};

/** The page as the server left it: the conversation in view, and the kept draft with its chips. */
export function stateFromServer(view: CaptureView, nextId: () => number): CaptureState {
  const staging = view.draft.session_id;
  const chips = staging ? view.draft.attachments.map((a) => storedChip(nextId(), a, { kind: 'restored' }, staging)) : [];
  return { ...EMPTY_CAPTURE, text: view.draft.text, destination: view.draft.destination, current: view.current, inbox: view.inbox, staging, chips };
}

/** The stored uploads the chips stand for, in order. */
export function stagedPaths(state: CaptureState): string[] {
  return state.chips.flatMap((c) => {
    const stored = storedUpload(c);
    return stored ? [stored.path] : [];
  });
}

export function uploading(state: CaptureState): boolean {
  return state.chips.some((c) => c.status === 'queued' || c.status === 'uploading');
}

/** Why Send cannot go now, in words for its tooltip, or null when it can. */
export function sendBlocker(state: CaptureState): string | null {
  if (state.sending) return 'Sending…';
  if (uploading(state)) return 'Waiting for uploads to finish';
  if (!state.text.trim() && stagedPaths(state).length === 0) return 'Type something or add a file';
  if (state.destination === 'current' && !state.current) return 'There is no conversation yet: choose Inbox or Ask the agent';
  if (state.destination === 'inbox' && !state.inbox) return 'Inbox is not available';
  return null;
}

/** The body of POST /api/capture/send. */
export function sendBody(state: CaptureState): { destination: CaptureDestination; session_id?: string; staging_session_id?: string; text: string; attachments: string[]; reply?: boolean } {
  const attachments = stagedPaths(state);
  // Asking in the current conversation is a message there that the agent answers (the server's `reply`).
  if (askInCurrent(state) && state.current) {
    return {
      destination: 'current',
      session_id: state.current.session_id,
      ...(state.staging && attachments.length > 0 ? { staging_session_id: state.staging } : {}),
      text: state.text,
      attachments,
      reply: true,
    };
  }
  return {
    destination: state.destination,
    ...(state.destination === 'current' && state.current ? { session_id: state.current.session_id } : {}),
    ...(state.staging && attachments.length > 0 ? { staging_session_id: state.staging } : {}),
    text: state.text,
    attachments,
  };
}

/** The body of PUT /api/capture/draft: the text, the stored chips and the destination. */
export function draftBody(state: CaptureState): { text: string; destination: CaptureDestination; session_id: string | null; attachments: string[] } {
  const attachments = stagedPaths(state);
  return { text: state.text, destination: state.destination, session_id: attachments.length > 0 ? state.staging : null, attachments };
}

/** What the page says once a capture is sent. */
export function sentNotice(destination: CaptureDestination, title: string | undefined, queued = false, asked = false): string {
  if (asked) return title ? `Asked the agent in “${title}”: the reply appears in the Satchel window.` : 'Asked the agent: the reply appears in the Satchel window.';
  if (destination === 'inbox') return queued ? 'Sent to the Inbox: it comes after the reply being written there.' : 'Sent to the Inbox.';
  if (destination === 'ask') return 'Asked the agent: the reply appears in the Satchel window.';
  // The server keeps a message written while a reply streams after that reply (server/store/queued.ts).
  if (queued) return title ? `Sent to “${title}”: it comes after the reply being written there.` : 'Sent: it comes after the reply being written.';
  return title ? `Sent to “${title}”.` : 'Sent.';
}

/** After a send (`queued`: the server said it waits for a reply being written): nothing left to send, on the same destination. */
export function afterSend(state: CaptureState, queued = false): CaptureState {
  const asked = askInCurrent(state);
  return { ...state, text: '', chips: [], staging: null, sending: false, notice: { kind: 'info', text: sentNotice(state.destination, state.current?.title, queued, asked) } };
}

/**
 * After Ask: the conversation asked is the current one now (the main window shows it), so the page names it —
 * before the fix it kept naming the conversation that was current when the window opened.
 */
export function afterAsk(state: CaptureState, asked: { session_id: string; title: string; busy?: boolean }): CaptureState {
  return { ...state, current: asked };
}

/** The transcript goes where the caret is, a space apart from the text around it. */
export function insertDictation(text: string, caret: number, spoken: string): { text: string; caret: number } {
  const before = text.slice(0, caret);
  const after = text.slice(caret);
  const lead = before && !/\s$/.test(before) ? ' ' : '';
  const trail = after && !/^\s/.test(after) ? ' ' : '';
  const inserted = `${lead}${spoken}${trail}`;
  return { text: before + inserted + after, caret: before.length + lead.length + spoken.length };
}
