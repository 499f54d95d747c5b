// Writing a streaming reply's shown text as it goes (issue 33, finding 11), so a crash keeps what the person read:
// the turn's frames already hold the text after the live redactor; each `token` and `reasoning` piece is added
// here and written in batches (store/streamed-text.ts), at most STREAMED_TEXT_BATCH_MS after it was shown or as
// soon as STREAMED_TEXT_BATCH_CHARS wait. One small INSERT per batch, on the store's one connection, never a write
// of the conversation's rows: streaming stays as fast as before and nothing reorders.
import { log } from '../core/log.js';
import type { SessionStore } from '../store/sessions.js';
import type { StreamedText } from '../store/streamed-text.js';

/**
 * The longest a shown piece waits before it is written: what a kill -9 may lose of a reply. A quarter second is
 * a few words of a model's stream and four small commits a second, nothing next to a turn's own work.
 */
export const STREAMED_TEXT_BATCH_MS = 250;
/** A batch is written at once when this many characters wait (a fast stream), so one INSERT stays small. */
export const STREAMED_TEXT_BATCH_CHARS = 16 * 1024;

type Store = Pick<SessionStore, 'appendStreamedText' | 'removeStreamedText'>;

export class StreamedBatches {
  private waiting: StreamedText = { content: '', reasoning: '' };
  private waitingChars = 0;
  private timer: NodeJS.Timeout | undefined;
  /** The write under way: one at a time, so batches land in the order shown; what comes meanwhile joins the next. */
  private writing: Promise<void> | undefined;
  private closed = false;
  private warned = false;

  constructor(
    private readonly sessions: Store,
    private readonly sessionId: string,
    private readonly streamId: string,
    private readonly limits = { ms: STREAMED_TEXT_BATCH_MS, chars: STREAMED_TEXT_BATCH_CHARS },
  ) {}

  /** A frame the turn sent: its text is kept when it is reply text (`token`) or reasoning. */
  shown(event: string, data: unknown): void {
    if (this.closed || (event !== 'token' && event !== 'reasoning')) return;
    const text = (data as { text?: unknown } | undefined)?.text;
    if (typeof text !== 'string' || text === '') return;
    this.waiting[event === 'token' ? 'content' : 'reasoning'] += text;
    this.waitingChars += text.length;
    if (this.waitingChars >= this.limits.chars) this.write();
    else this.timer ??= setTimeout(() => this.write(), this.limits.ms).unref();
  }

  private write(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.writing || this.waitingChars === 0 || this.closed) return;
    const batch = this.waiting;
    this.waiting = { content: '', reasoning: '' };
    this.waitingChars = 0;
    this.writing = this.sessions
      .appendStreamedText(this.sessionId, this.streamId, batch)
      .catch((err: unknown) => {
        // Costs only what a crash would keep; the turn and its stored rows go on.
        if (!this.warned) log.warn('could not keep a streaming reply\'s text as it went:', err);
        this.warned = true;
      })
      .finally(() => {
        this.writing = undefined;
        if (this.waitingChars >= this.limits.chars) this.write();
        else if (this.waitingChars > 0) this.timer ??= setTimeout(() => this.write(), this.limits.ms).unref();
      });
  }

  /** The reply ended: nothing more is written (the turn stores its whole reply itself); waits for a write under way. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    while (this.writing) await this.writing;
  }

  /** The turn's rows are stored: its kept batches go. */
  async discard(): Promise<void> {
    await this.close();
    await this.sessions.removeStreamedText({ sessionId: this.sessionId, streamId: this.streamId }).catch((err: unknown) => log.warn('could not remove a stored reply\'s kept text:', err));
  }
}
