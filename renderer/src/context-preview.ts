// The composer's question "what would the next turn give the agent?" (POST /api/chat/context, issue 36), asked
// while the person types or attaches: PREVIEW_DEBOUNCE_MS after the last change, at most one request in flight
// (a change meanwhile is asked once that one answers), only the answer to the newest draft shown. Nothing here
// waits on the person: typing and Send never wait for it, and a failure (the server down, an older server without
// the endpoint: 404) is no warning at all. Also the warning's words, pure.
import type { ChatContextPreview, ContextDocument, SentAttachment } from './api.js';

/** Quiet after the last key before asking: a sentence typed at speed is one request, not one per key. */
export const PREVIEW_DEBOUNCE_MS = 600;
/** Names a warning spells out; the rest are counted. */
export const MAX_NAMED = 3;

export interface PreviewInput {
  sessionId: string;
  text: string;
  attachments: SentAttachment[];
}

export type Ask = (input: PreviewInput) => Promise<ChatContextPreview>;
/** The answer for `input`, or null: nothing to warn of (nothing asked, a failure, a newer draft). */
export type Answer = (preview: ChatContextPreview | null) => void;

export interface Timers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const realTimers: Timers = { set: (fn, ms) => setTimeout(fn, ms), clear: (t) => clearTimeout(t as ReturnType<typeof setTimeout>) };

const keyOf = (input: PreviewInput): string => JSON.stringify([input.sessionId, input.text, input.attachments]);

export class PreviewRequests {
  /** The draft the page wants an answer for (null: none), by key. */
  private wanted: string | null = null;
  private input: PreviewInput | null = null;
  private timer: unknown = null;
  private inFlight = false;
  /** The last answer and the draft it is for: the same draft again (typed and taken back) is not asked again. */
  private answered: { key: string; preview: ChatContextPreview | null } | null = null;

  constructor(
    private readonly ask: Ask,
    private readonly answer: Answer,
    private readonly timers: Timers = realTimers,
    private readonly debounceMs = PREVIEW_DEBOUNCE_MS,
  ) {}

  /** The conversation moved on (a turn reported): answers kept for earlier drafts no longer hold. */
  forget(): void {
    this.answered = null;
    this.wanted = null;
    if (this.timer !== null) this.timers.clear(this.timer);
    this.timer = null;
    this.answer(null);
  }

  /** The draft now (null: nothing to ask about): asked after the quiet, unless it is what was answered last. */
  want(input: PreviewInput | null): void {
    const key = input ? keyOf(input) : null;
    if (key === this.wanted) return;
    this.wanted = key;
    this.input = input;
    if (this.timer !== null) this.timers.clear(this.timer);
    this.timer = null;
    if (key !== null && this.answered?.key === key) {
      this.answer(this.answered.preview);
      return;
    }
    // A changed draft: the warning for the old one is no longer true, and goes until the answer for this one.
    this.answer(null);
    if (key === null) return;
    this.timer = this.timers.set(() => {
      this.timer = null;
      this.send();
    }, this.debounceMs);
  }

  private send(): void {
    const input = this.input;
    const key = this.wanted;
    if (this.inFlight || !input || key === null) return;
    if (this.answered?.key === key) return this.answer(this.answered.preview);
    this.inFlight = true;
    this.ask(input).then(
      (preview) => this.settle(key, preview, true),
      () => this.settle(key, null, false),
    );
  }

  /** `ok`: answered; a failure (a moment's, or an older server's 404) is shown as nothing and not kept. */
  private settle(key: string, preview: ChatContextPreview | null, ok: boolean): void {
    this.inFlight = false;
    if (ok) this.answered = { key, preview };
    if (key === this.wanted) {
      this.answer(preview);
      return;
    }
    // The draft changed while this was asked: its answer is stale; the newest draft is asked now, unless it is
    // still waiting for its quiet (the timer sends it).
    if (this.timer === null && this.wanted !== null) this.send();
  }
}

const quoted = (name: string): string => `“${name}”`;

/** “a”, “b” and “c”; past MAX_NAMED, “a”, “b”, “c” and 2 more. */
export function nameList(names: readonly string[]): string {
  const shown = names.slice(0, MAX_NAMED).map(quoted);
  const rest = names.length - shown.length;
  if (rest > 0) return `${shown.join(', ')} and ${rest.toLocaleString('en-US')} more`;
  if (shown.length <= 1) return shown.join('');
  return `${shown.slice(0, -1).join(', ')} and ${shown.at(-1)}`;
}

/**
 * What the warning says of a preview, or null when no document whole in the last turn is left out. A document
 * that would be cut to passages and one left out for the budget are said apart: the first is still searched.
 */
export function leftOutSentence(preview: ChatContextPreview | null): string | null {
  const names = [...new Set((preview?.left_out ?? []).filter((n) => typeof n === 'string' && n))];
  if (!preview || names.length === 0) return null;
  const stateOf = (name: string): ContextDocument['state'] | undefined => preview.documents.find((d) => d.name === name)?.state;
  const dropped = names.filter((n) => stateOf(n) === 'not_sent' || stateOf(n) === 'unreadable');
  const cut = names.filter((n) => !dropped.includes(n));
  const sentences: string[] = [];
  if (cut.length) sentences.push(`${nameList(cut)} will no longer be sent whole: the agent gets the passages that match your message.`);
  if (dropped.length) sentences.push(`${nameList(dropped)} will not be sent: ${dropped.length === 1 ? 'it no longer fits' : 'they no longer fit'} in what one turn can hold.`);
  return sentences.join(' ');
}
