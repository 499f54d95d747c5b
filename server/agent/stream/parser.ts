// Layer 3's switch: one server-sent event → the decoder of its dialect. `data: [DONE]` ends the stream; a
// `hermes.tool.progress` event is Hermes's; an unnamed, `message` or `error` event is an OpenAI chunk; other
// named events are another dialect's extras, ignored as the SSE spec says for unknown events. What is only known
// at the end (the collected tool calls, the usage, or the `cut`) is said by finish().
import type { UpstreamEvent } from '../types.js';
import { HermesToolDecoder, TOOL_PROGRESS_EVENT } from './hermes.js';
import { isObject, OpenAiDecoder, type Json } from './openai.js';
import type { SseEvent } from './sse.js';

const OPENAI_EVENTS = new Set(['', 'message', 'error']);

/** The JSON objects of an event's data: the whole data, or each of its lines (a server that forgot the blank lines). */
function objects(data: string): Json[] {
  const whole = parseObject(data);
  if (whole || !data.includes('\n')) return whole ? [whole] : [];
  return data.split('\n').flatMap((line): Json[] => {
    const object = parseObject(line);
    return object ? [object] : [];
  });
}

function parseObject(text: string): Json | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return isObject(parsed) ? parsed : undefined;
  } catch {
    // A stray non-JSON data line (some servers send plain text pings): not part of the answer.
    return undefined;
  }
}

export class StreamParser {
  /** Seen `data: [DONE]` (or a whole completion): nothing after it matters. */
  done = false;
  readonly openai: OpenAiDecoder;
  readonly hermes: HermesToolDecoder;

  constructor(apiKey?: string, now?: () => number, maxArgumentBytes?: number) {
    this.openai = new OpenAiDecoder(apiKey, maxArgumentBytes);
    this.hermes = new HermesToolDecoder(now);
  }

  /** A choice said why it stopped: a stream that then closes without [DONE] is complete. */
  get finished(): boolean {
    return this.openai.finished;
  }

  /** Content or a tool event arrived: otherwise the turn is `no_response`. */
  get answered(): boolean {
    return this.openai.answered || this.hermes.answered;
  }

  /** The tool calls passed their bound: nothing after this is read. */
  get cut(): boolean {
    return this.openai.calls.cut;
  }

  /** Nothing more is to be read: [DONE] came, or the reply was cut. */
  get over(): boolean {
    return this.done || this.cut;
  }

  *event({ event, data }: SseEvent): Generator<UpstreamEvent> {
    if (this.over) return;
    if (data.trim() === '[DONE]') {
      this.done = true;
      return;
    }
    const dialect = event === TOOL_PROGRESS_EVENT ? 'hermes' : OPENAI_EVENTS.has(event) ? 'openai' : undefined;
    if (!dialect) return;
    for (const object of objects(data)) {
      if (this.over) return;
      yield* dialect === 'hermes' ? this.hermes.progress(object) : this.openai.chunk(object);
    }
  }

  /** A whole `chat.completion` (a server that ignored `stream: true`). */
  *completion(body: Json): Generator<UpstreamEvent> {
    yield* this.openai.completion(body);
    this.done = true;
  }

  /** What is only known at the end: the collected tool calls, then the usage (or, when cut, the `cut`). */
  *finish(): Generator<UpstreamEvent> {
    const { calls, usage } = this.openai;
    if (calls.size > 0) yield { kind: 'tool_calls', calls: calls.list() };
    if (this.cut) yield { kind: 'cut', what: 'tool_arguments', limitBytes: calls.maxArgumentBytes };
    else if (usage) yield { kind: 'usage', ...usage };
  }
}
