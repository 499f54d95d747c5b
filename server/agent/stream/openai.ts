// Layer 3, the OpenAI dialect: one `chat.completion.chunk` (or a whole `chat.completion` from a server that
// ignored `stream: true`) → UpstreamEvents. Text and reasoning go out as they come; tool-call deltas are
// collected (tool-calls.ts) and the usage kept, both said at the end by the parser.
import { AgentError, type UpstreamEvent } from '../types.js';
import { cleanMessage, RETRY_HINT } from '../upstream-errors.js';
import { ToolCallCollector } from './tool-calls.js';

export type Json = Record<string, unknown>;
export const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
export const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

export interface Usage {
  inputTokens: number;
  outputTokens: number;
}

export class OpenAiDecoder {
  /** A choice said why it stopped (`finish_reason`): a stream that then closes without [DONE] is complete. */
  finished = false;
  /** Content or a tool call arrived. */
  answered = false;
  usage: Usage | undefined;
  readonly calls: ToolCallCollector;

  constructor(
    private readonly apiKey?: string,
    maxArgumentBytes?: number,
  ) {
    this.calls = new ToolCallCollector(maxArgumentBytes);
  }

  /** One streamed chunk (or an error object). */
  *chunk(chunk: Json): Generator<UpstreamEvent> {
    this.checkError(chunk);
    const choice = firstChoice(chunk);
    if (choice && isObject(choice.delta)) yield* this.message(choice.delta, (calls) => {
        this.answered = true;
        this.calls.add(calls);
      });
    if (choice && typeof choice.finish_reason === 'string') this.finished = true;
    this.noteUsage(chunk.usage);
  }

  /** A whole completion: its message has the same fields as a delta, its tool calls whole and unnumbered. */
  *completion(body: Json): Generator<UpstreamEvent> {
    this.checkError(body);
    const choice = firstChoice(body);
    if (choice && isObject(choice.message)) {
      yield* this.message(choice.message, (calls) =>
        calls.forEach((call, index) => {
          this.answered = true;
          this.calls.add([{ ...(isObject(call) ? call : {}), index }]);
        }),
      );
    }
    this.noteUsage(body.usage);
  }

  private *message(message: Json, addCalls: (calls: unknown[]) => void): Generator<UpstreamEvent> {
    const reasoning = str(message.reasoning_content) ?? str(message.reasoning);
    if (reasoning) yield { kind: 'reasoning', text: reasoning };
    const content = str(message.content);
    if (content) {
      this.answered = true;
      yield { kind: 'token', text: content };
    }
    if (Array.isArray(message.tool_calls)) addCalls(message.tool_calls);
  }

  private checkError(chunk: Json): void {
    const error = chunk.error;
    if (error === undefined || error === null) return;
    const message = typeof error === 'string' ? error : isObject(error) ? str(error.message) : undefined;
    throw new AgentError('upstream_error', `The agent reported an error: ${cleanMessage(message ?? 'no message', this.apiKey).replace(/\.+$/, '')}.`, RETRY_HINT);
  }

  private noteUsage(usage: unknown): void {
    if (!isObject(usage)) return;
    const input = usage.prompt_tokens ?? usage.input_tokens;
    const output = usage.completion_tokens ?? usage.output_tokens;
    if (typeof input === 'number' || typeof output === 'number') {
      this.usage = { inputTokens: typeof input === 'number' ? input : 0, outputTokens: typeof output === 'number' ? output : 0 };
    }
  }
}

function firstChoice(body: Json): Json | undefined {
  return Array.isArray(body.choices) && isObject(body.choices[0]) ? body.choices[0] : undefined;
}
