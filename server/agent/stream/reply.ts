// Layer 4 of the agent stream, on the turn's side: the accumulator. It collects the reply (text, reasoning, tool
// calls, usage, time to first token) from the UpstreamEvents, under MAX_REPLY_BYTES, and hands each live piece to
// the turn's frames only after the live redactor of its stream (reply-redact.ts): nothing leaves unredacted.
import type { ChatUsage } from '../../core/wire.js';
import type { RedactedText, TurnFrames } from '../../projections/index.js';
import { maskKnown } from '../../redact/index.js';
import type { Message } from '../../store/sessions.js';
import { ReplyRedactor } from '../reply-redact.js';
import type { ToolCall, UpstreamEvent } from '../types.js';
import { ToolActivityLog } from './activity.js';
import { ByteBudget } from './utf8.js';

/**
 * UTF-8 bytes of text one reply may bring, its content and reasoning together. A long answer is some tens of
 * KiB; this leaves a hundred times that, while a reply of 400 MB (issue 21) became a 400 MB session file that
 * took 2 GB of memory and 6.8 s to load at every start. Past it the rest is not read: the reply is cut, ends
 * with REPLY_CUT_MARKER and is stored as an answer, and the upstream request is closed.
 */
export const MAX_REPLY_BYTES = 4 * 1024 * 1024;
const MIB = 1024 * 1024;
/** Appended (as the last `token` frame and in the stored answer) to a reply cut at MAX_REPLY_BYTES. */
export const REPLY_CUT_MARKER = `\n\n…[reply cut by Satchel at ${MAX_REPLY_BYTES / MIB} MiB]`;
/** Text of the marker when the tool-call arguments were cut (tool-calls.ts MAX_TOOL_ARGUMENT_BYTES). */
export function toolArgumentsCutMarker(limitBytes: number): string {
  return `\n\n…[tool-call arguments cut by Satchel at ${limitBytes / MIB} MiB]`;
}

/** The frames the reply streams, each sent as soon as it is redacted. */
export type StreamedFrame = 'token' | 'reasoning' | 'tool' | 'tool_complete';
export type Emit = <N extends StreamedFrame>(event: N, data: TurnFrames[N]) => void;

function now(): number {
  return Date.now() / 1000;
}

export class Reply {
  content = '';
  reasoning = '';
  toolCalls: ToolCall[] = [];
  /** Null until the agent reports usage: a server that never does has unknown usage, not 0 tokens. */
  usage: { inputTokens: number; outputTokens: number } | null = null;
  ttftMs: number | null = null;
  /** The tools the agent ran (its `tool` / `tool_complete` events), as the stored row keeps them. */
  readonly activity = new ToolActivityLog();
  /** Seconds from the request to the reply's end, once flush() ended it. */
  durationSeconds = 0;
  /** The reply passed a bound (its text, or the tool calls' arguments) and ended with a marker. */
  cut = false;
  private readonly budget = new ByteBudget(MAX_REPLY_BYTES);
  // Live pieces are redacted as a stream, so a credential split across tokens is masked too (the stored answer
  // is redacted whole on the way out; the agent's own key never reaches the store: row()).
  private readonly shown = { token: new ReplyRedactor(), reasoning: new ReplyRedactor() };

  constructor(
    private readonly emit: Emit,
    private readonly t0 = performance.now(),
  ) {}

  /** Takes one event; false once the reply is cut and nothing more may be read. */
  add(event: UpstreamEvent): boolean {
    switch (event.kind) {
      case 'token':
      case 'reasoning': {
        this.ttftMs ??= Math.round(performance.now() - this.t0);
        const text = this.budget.take(event.text);
        if (event.kind === 'token') this.content += text;
        else this.reasoning += text;
        this.piece(event.kind, this.shown[event.kind].push(text));
        if (!this.budget.exhausted) return true;
        this.endWithMarker(REPLY_CUT_MARKER);
        return false;
      }
      case 'cut':
        this.endWithMarker(toolArgumentsCutMarker(event.limitBytes));
        return false;
      case 'tool':
        this.activity.started(event.tid, event.name, event.preview);
        this.emit('tool', { event_type: 'tool.started', name: event.name, preview: event.preview, args: event.args, tid: event.tid });
        return true;
      case 'tool_complete': {
        const { name, preview, args, tid, duration, isError } = event;
        this.activity.completed(tid, name, preview, duration, isError);
        this.emit('tool_complete', { event_type: 'tool.completed', name, preview, args, tid, duration, is_error: isError });
        return true;
      }
      case 'tool_calls':
        this.toolCalls = event.calls;
        return true;
      case 'usage':
        this.usage = { inputTokens: event.inputTokens, outputTokens: event.outputTokens };
        return true;
    }
  }

  /** The reply ended (answered, failed, cancelled): what the redactors held goes out. */
  flush(): void {
    this.durationSeconds = (performance.now() - this.t0) / 1000;
    this.piece('token', this.shown.token.flush());
    this.piece('reasoning', this.shown.reasoning.flush());
  }

  /**
   * The assistant row of what the agent sent, as it is stored: its own key masked in every field it wrote (a
   * hostile or broken agent may echo it anywhere, and the session file is read back by MCP clients and exports),
   * everything else stored whole and redacted on the way out.
   */
  row(): Message {
    const { content, reasoning, toolCalls, activity } = this;
    const { reported, ...usage } = this.chatUsage();
    return {
      role: 'assistant',
      content: maskKnown(content),
      timestamp: now(),
      ...(reasoning ? { reasoning: maskKnown(reasoning) } : {}),
      ...(toolCalls.length
        ? { tool_calls: toolCalls.map((c) => ({ id: maskKnown(c.id), function: { name: maskKnown(c.function.name), arguments: maskKnown(c.function.arguments) } })) }
        : {}),
      ...(activity.size ? { tool_activity: activity.rows() } : {}),
      ...(activity.omitted ? { tool_activity_omitted: activity.omitted } : {}),
      ...(reported ? { usage } : {}),
    };
  }

  /** The usage of the reply as `done`, `metering` and the stored row say it; `reported: false` when the agent said none. */
  chatUsage(): ChatUsage {
    return {
      input_tokens: this.usage?.inputTokens ?? 0,
      output_tokens: this.usage?.outputTokens ?? 0,
      duration_seconds: Math.round(this.durationSeconds * 1000) / 1000,
      ttft_ms: this.ttftMs,
      reported: this.usage !== null,
    };
  }

  /** What came before a failure or a cancel, as a `_partial` row (none when nothing came). */
  partialRows(): Message[] {
    return this.content || this.reasoning || this.toolCalls.length > 0 || this.activity.size > 0 ? [{ ...this.row(), _partial: true }] : [];
  }

  private piece(event: 'token' | 'reasoning', text: RedactedText): void {
    if (text) this.emit(event, { text });
  }

  private endWithMarker(marker: string): void {
    this.cut = true;
    // The reasoning's held tail goes out first, then the content's, then the marker after the content.
    this.piece('reasoning', this.shown.reasoning.flush());
    this.content += marker;
    this.piece('token', this.shown.token.push(marker));
  }
}
