// Push-to-talk's destinations as data (issue 26): the desktop shell opens the capture page with
// `?dictate=1&then=clipboard|message` (main/window-options.ts captureUrl, from the setting pushToTalkTo). A
// dictation started by the shortcut then goes onto the clipboard or is sent as a message, and the page closes
// itself; `capture` (no `then`) leaves the text in the field, as before. The page (capture.ts) feeds this machine
// what the microphone and the clipboard/send did, and carries out the effects it answers with.

/** Where a push-to-talk transcript goes (main/gui-config.ts PushToTalkDestination). */
export type PttThen = 'capture' | 'clipboard' | 'message';

/**
 * The page's destination from its query: only a dictation page (`dictate=1`) carries one, and anything but the
 * two known words is the field (a mistyped address never sends anything anywhere).
 */
export function pttThen(search: string): PttThen {
  const q = new URLSearchParams(search);
  if (q.get('dictate') !== '1') return 'capture';
  const then = q.get('then');
  return then === 'clipboard' || then === 'message' ? then : 'capture';
}

/**
 * How long "Copied to the clipboard" / "Sent to …" stays on screen before the window closes: long enough to be
 * read at a glance (about a second and a half for four words), short enough that the window is gone before the
 * person is back in the application they were using.
 */
export const PTT_CLOSE_DELAY_MS = 1_500;

export type PttPhase =
  /** No push-to-talk dictation is on its way (the page is quick capture; the microphone button inserts). */
  | 'off'
  /** The shortcut was pressed: the microphone is opening. */
  | 'armed'
  | 'recording'
  | 'transcribing'
  /** The transcript is being written to the clipboard or sent. */
  | 'delivering'
  | 'copied'
  | 'sent'
  /** Silence: nothing was copied or sent. */
  | 'empty'
  /** Esc: nothing was copied or sent. */
  | 'cancelled'
  /** The microphone, the transcription, the clipboard or the send failed; any transcript is kept in the field. */
  | 'failed';

export interface PttState {
  then: PttThen;
  phase: PttPhase;
}

export type PttEvent =
  /** The global shortcut was pressed (the page's `?dictate=1` on opening, `#ptt=<n>` after). */
  | { type: 'press' }
  /** The microphone is open. */
  | { type: 'recording' }
  | { type: 'transcribing' }
  | { type: 'transcript'; text: string }
  | { type: 'empty' }
  | { type: 'cancelled' }
  /** The microphone could not be opened or the transcription failed (the Voice bar says why). */
  | { type: 'voice-failed' }
  | { type: 'copied' }
  | { type: 'copy-refused'; text: string; reason: string }
  /** `title`: the conversation's, or null for a new one (there was no current conversation). */
  | { type: 'sent'; title: string | null }
  | { type: 'send-failed'; text: string; reason: string };

export type PttEffect =
  /** Put the transcript in the field, where the person can edit it (quick capture, or a failure: never lost). */
  | { kind: 'insert'; text: string }
  | { kind: 'copy'; text: string }
  | { kind: 'send'; text: string }
  | { kind: 'notice'; level: 'info' | 'error'; text: string }
  | { kind: 'close'; afterMs: number };

export interface PttStep {
  state: PttState;
  effects: PttEffect[];
}

export const ARMED_COPY_NOTICE = 'Dictating for the clipboard: press the shortcut again to stop, Esc to cancel.';
export const ARMED_SEND_NOTICE = 'Dictating a message: press the shortcut again to send it, Esc to cancel.';
export const COPIED_NOTICE = 'Copied to the clipboard.';
export const NEW_CONVERSATION_NOTICE = 'Sent to a new conversation.';
export const SILENCE_COPY_NOTICE = 'No speech was recognised: nothing was copied.';
export const SILENCE_SEND_NOTICE = 'No speech was recognised: nothing was sent.';
export const CANCELLED_COPY_NOTICE = 'Recording cancelled: nothing was copied.';
export const CANCELLED_SEND_NOTICE = 'Recording cancelled: nothing was sent.';

export function sentToNotice(title: string | null): string {
  return title ? `Sent to “${title}”.` : NEW_CONVERSATION_NOTICE;
}

export function copyRefusedNotice(reason: string): string {
  return `Could not copy to the clipboard (${reason}). The text is in the field: copy it from there.`;
}

export function sendFailedNotice(reason: string): string {
  return `Not sent: ${reason}. The text is in the field: send it from there.`;
}

/** Why navigator.clipboard.writeText failed, in words for copyRefusedNotice. */
export function clipboardRefusal(err: unknown): string {
  const name = err instanceof DOMException || err instanceof Error ? err.name : '';
  if (name === 'NotAllowedError' || name === 'SecurityError') return 'the system refused it';
  if (name === 'TypeError') return 'the clipboard is not available on this page';
  return err instanceof Error && err.message ? err.message : 'unknown error';
}

export const PTT_OFF: PttState = { then: 'capture', phase: 'off' };

/** A dictation the shortcut started is on its way (its transcript goes to the destination, not the field). */
function inFlight(phase: PttPhase): boolean {
  return phase === 'armed' || phase === 'recording' || phase === 'transcribing';
}

/** One step: the next state and what the page must do. Events that do not fit the phase change nothing. */
export function pttStep(state: PttState, event: PttEvent): PttStep {
  const at = (phase: PttPhase, ...effects: PttEffect[]): PttStep => ({ state: { ...state, phase }, effects });
  const stay: PttStep = { state, effects: [] };
  const copying = state.then === 'clipboard';
  switch (event.type) {
    case 'press':
      // Into the field: the machine stays off and the Voice inserts as before. A press while one is on its way
      // is the stop (the Voice toggles); after a result, a new dictation begins.
      if (state.then === 'capture' || inFlight(state.phase) || state.phase === 'delivering') return stay;
      return at('armed', { kind: 'notice', level: 'info', text: state.then === 'clipboard' ? ARMED_COPY_NOTICE : ARMED_SEND_NOTICE });
    case 'recording':
      return state.phase === 'armed' ? at('recording') : stay;
    case 'transcribing':
      return state.phase === 'armed' || state.phase === 'recording' ? at('transcribing') : stay;
    case 'transcript':
      if (!inFlight(state.phase)) return { state, effects: [{ kind: 'insert', text: event.text }] };
      return at('delivering', { kind: copying ? 'copy' : 'send', text: event.text });
    case 'empty':
      return inFlight(state.phase) ? at('empty', { kind: 'notice', level: 'info', text: copying ? SILENCE_COPY_NOTICE : SILENCE_SEND_NOTICE }) : stay;
    case 'cancelled':
      return inFlight(state.phase) ? at('cancelled', { kind: 'notice', level: 'info', text: copying ? CANCELLED_COPY_NOTICE : CANCELLED_SEND_NOTICE }) : stay;
    case 'voice-failed':
      return inFlight(state.phase) ? at('failed') : stay;
    case 'copied':
      return state.phase === 'delivering' ? at('copied', { kind: 'notice', level: 'info', text: COPIED_NOTICE }, { kind: 'close', afterMs: PTT_CLOSE_DELAY_MS }) : stay;
    case 'sent':
      return state.phase === 'delivering' ? at('sent', { kind: 'notice', level: 'info', text: sentToNotice(event.title) }, { kind: 'close', afterMs: PTT_CLOSE_DELAY_MS }) : stay;
    case 'copy-refused':
      return state.phase === 'delivering'
        ? at('failed', { kind: 'insert', text: event.text }, { kind: 'notice', level: 'error', text: copyRefusedNotice(event.reason) })
        : stay;
    case 'send-failed':
      return state.phase === 'delivering'
        ? at('failed', { kind: 'insert', text: event.text }, { kind: 'notice', level: 'error', text: sendFailedNotice(event.reason) })
        : stay;
  }
}
