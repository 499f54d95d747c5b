// The agent side of a turn (docs/spec-notes.md, "Chat: agent side"): one POST to an OpenAI-compatible
// `/v1/chat/completions`, its server-sent events turned into UpstreamEvents as each line arrives. Plain node
// http(s) rather than fetch: Nagle off on the socket, the request destroyed the moment the turn is cancelled,
// and every read bounded (a line, an error body, a one-shot answer).
import http from 'node:http';
import https from 'node:https';
import { redact } from '../redact/index.js';
import { SETTINGS } from '../settings/table.js';
import { AgentError, type AgentConfig, type StreamTurn, type ToolCall, type TurnRequest, type UpstreamEvent } from './types.js';

/** One SSE line longer than this is not a chat stream (a chunk is a few hundred bytes). */
export const MAX_LINE_BYTES = 4 * 1024 * 1024;
/**
 * UTF-8 bytes of tool-call arguments one turn may bring, all its calls together. They are stored with the
 * answer and sent back to the agent with the history, so the bound is that of a reply (turns.ts
 * MAX_REPLY_BYTES): a tool writing a large file fits, an agent sending 30 MB in 0.7 s does not. Past it the
 * arguments are cut, the stream is no longer read, and the turn ends with what fitted (a `cut` event).
 */
export const MAX_TOOL_ARGUMENT_BYTES = 4 * 1024 * 1024;
/**
 * Tool calls one reply may bring. A model calls a handful at once; each call is an entry kept until the reply
 * ends, so an agent numbering a new call in every chunk would otherwise grow memory without growing the
 * argument bytes. Past it the reply is cut like an argument flood.
 */
export const MAX_TOOL_CALLS = 256;
/** An error status's body is read this far for its message, no further. */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;
/** A one-shot JSON answer (a server that ignored `stream`) is read this far. */
export const MAX_ONESHOT_BYTES = 4 * 1024 * 1024;
/** The server's own words in an error message are cut here: enough to act on, short enough for a banner. */
export const MAX_ERROR_MESSAGE_CHARS = 300;
export const HERMES_SESSION_HEADER = 'X-Hermes-Session-Id';
export const TOOL_PROGRESS_EVENT = 'hermes.tool.progress';
/** Hermes reports the model's thinking as a pseudo-tool of this name: it is reasoning, not a tool. */
export const THINKING_TOOL = '_thinking';
export const STREAM_ENDED_EARLY = "the agent's stream ended early";
const SETTINGS_HINT = 'Check the agent in Settings → Agent.';
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);

/** `<base>/v1/<rest>`, whether the configured base ends in `/v1` or not. Throws AgentError for a non-http URL. */
export function agentUrl(baseUrl: string, rest: string): URL {
  let base: URL;
  try {
    base = new URL(baseUrl.trim());
  } catch {
    throw new AgentError('unreachable', "The agent's address is not a valid URL", SETTINGS_HINT);
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') {
    throw new AgentError('unreachable', "The agent's address must start with http:// or https://", SETTINGS_HINT);
  }
  const prefix = base.pathname.replace(/\/+$/, '').replace(/\/v1$/, '');
  base.pathname = `${prefix}/v1/${rest}`;
  base.search = '';
  base.hash = '';
  return base;
}

/** The server's words made safe to show: the key removed, credentials redacted, one line, short. */
export function cleanMessage(text: string, apiKey?: string): string {
  let out = text;
  if (apiKey) out = out.split(apiKey).join('***');
  out = redact(out).replace(/\s+/g, ' ').trim();
  return out.length > MAX_ERROR_MESSAGE_CHARS ? `${out.slice(0, MAX_ERROR_MESSAGE_CHARS)}…` : out;
}

/** The message in an OpenAI-style error body (`{"error": {"message"}}`, `{"error": "…"}`, `{"detail"}`), else the text. */
export function errorBodyMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as Record<string, unknown>;
    const error = parsed?.error;
    if (typeof error === 'string') return error;
    if (error && typeof (error as { message?: unknown }).message === 'string') return (error as { message: string }).message;
    for (const key of ['message', 'detail']) if (typeof parsed?.[key] === 'string') return parsed[key] as string;
  } catch {
    // Not JSON: the text itself.
  }
  return body;
}

/** Seconds from a Retry-After header: delta-seconds or an HTTP date. */
export function retryAfterSeconds(header: string | undefined, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const trimmed = header.trim();
  if (/^\d+(?:\.\d+)?$/.test(trimmed)) return Math.ceil(Number(trimmed));
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

/** The AgentError an HTTP error status means. */
export function statusError(status: number, body: string, headers: http.IncomingHttpHeaders, config: AgentConfig, model: string): AgentError {
  const said = cleanMessage(errorBodyMessage(body), config.apiKey);
  const suffix = said ? `: ${said}` : '';
  if (status === 401 || status === 403) {
    return new AgentError('auth_error', `The agent refused the request (${status})${suffix}`, "Check the agent's API key in Settings → Agent.");
  }
  if (status === 404) {
    return new AgentError('model_not_found', `The agent has no model "${cleanMessage(model, config.apiKey)}" (404)${suffix}`, "Choose one of the agent's models in Settings → Agent.");
  }
  if (status === 429) {
    const retry = retryAfterSeconds(headerText(headers['retry-after']));
    const when = retry === undefined ? 'try again shortly' : `try again in ${retry} s`;
    return new AgentError('rate_limit', `The agent is rate-limited (429); ${when}${suffix}`, undefined, retry);
  }
  return new AgentError('upstream_error', `The agent failed (${status})${suffix}`);
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function connectionError(err: unknown, url: URL): AgentError {
  const code = (err as NodeJS.ErrnoException)?.code;
  if (code && UNREACHABLE_CODES.has(code)) {
    return new AgentError('unreachable', `Cannot reach the agent at ${url.host} (${code})`, `Is the agent running? ${SETTINGS_HINT}`);
  }
  return new AgentError('upstream_error', `The connection to the agent at ${url.host} failed${code ? ` (${code})` : ''}`);
}

/** Splits bytes into lines (LF or CRLF), decoding each whole line, never holding more than one line. */
export class LineSplitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  constructor(private readonly maxLineBytes = MAX_LINE_BYTES) {}

  *push(chunk: Buffer): Generator<string> {
    let start = 0;
    for (let nl = chunk.indexOf(0x0a); nl !== -1; nl = chunk.indexOf(0x0a, start)) {
      this.take(chunk.subarray(start, nl));
      const line = Buffer.concat(this.pending, this.pendingBytes).toString('utf8');
      this.pending = [];
      this.pendingBytes = 0;
      start = nl + 1;
      yield line.endsWith('\r') ? line.slice(0, -1) : line;
    }
    if (start < chunk.length) this.take(chunk.subarray(start));
  }

  /** What is left after the last newline (a stream whose last line has no newline). */
  rest(): string | undefined {
    if (this.pendingBytes === 0) return undefined;
    const line = Buffer.concat(this.pending, this.pendingBytes).toString('utf8');
    this.pending = [];
    this.pendingBytes = 0;
    return line.endsWith('\r') ? line.slice(0, -1) : line;
  }

  private take(part: Buffer): void {
    this.pendingBytes += part.length;
    if (this.pendingBytes > this.maxLineBytes) {
      throw new AgentError('upstream_error', `The agent sent a line longer than ${this.maxLineBytes / (1024 * 1024)} MiB`);
    }
    // A copy: the chunk's memory belongs to the socket's pool.
    if (part.length > 0) this.pending.push(Buffer.from(part));
  }
}

/**
 * The longest prefix of `text` that fits in `maxBytes` of UTF-8, never splitting a character (encodeInto
 * stops before one that does not fit, and says how much of the string it took).
 */
export function prefixWithinBytes(text: string, maxBytes: number): string {
  if (maxBytes <= 0) return '';
  if (text.length * 3 <= maxBytes) return text;
  const { read } = new TextEncoder().encodeInto(text, new Uint8Array(maxBytes));
  return text.slice(0, read);
}

interface RunningTool {
  name: string;
  preview: string;
  args: unknown;
  started: number;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/**
 * The stream's meaning, line by line: SSE fields in, UpstreamEvents out. Separate from the transport so the
 * one-shot JSON answer and the tests go through the same rules.
 */
export class StreamParser {
  /** Seen `data: [DONE]`: nothing after it matters. */
  done = false;
  /** A choice said why it stopped (`finish_reason`): a stream that then closes without [DONE] is complete. */
  finished = false;
  /** Content or a tool event arrived: otherwise the turn is `no_response`. */
  answered = false;
  /** The tool-call arguments passed their bound: nothing after this is read. */
  cut = false;
  private argumentBytes = 0;
  private eventName = '';
  private readonly calls = new Map<number, { id: string; name: string; arguments: string }>();
  private readonly tools = new Map<string, RunningTool>();
  private usage: { inputTokens: number; outputTokens: number } | undefined;
  private toolSeq = 0;

  constructor(
    private readonly apiKey?: string,
    private readonly now: () => number = () => performance.now(),
    private readonly maxArgumentBytes = MAX_TOOL_ARGUMENT_BYTES,
  ) {}

  *line(line: string): Generator<UpstreamEvent> {
    if (this.done || this.cut) return;
    if (line === '') {
      this.eventName = '';
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.eventName = value.trim();
    else if (field === 'data') yield* this.data(value);
  }

  private *data(value: string): Generator<UpstreamEvent> {
    if (value.trim() === '[DONE]') {
      this.done = true;
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      // A stray non-JSON data line (some servers send plain text pings): not part of the answer.
      return;
    }
    if (!isObject(parsed)) return;
    if (this.eventName === TOOL_PROGRESS_EVENT) yield* this.toolProgress(parsed);
    else if (this.eventName === '' || this.eventName === 'message' || this.eventName === 'error') yield* this.chunk(parsed);
    // Other named events are another dialect's extras: ignored, as the spec says for unknown events.
  }

  /** One `chat.completion.chunk` (or an error object). */
  *chunk(chunk: Json): Generator<UpstreamEvent> {
    this.checkError(chunk);
    const choice = Array.isArray(chunk.choices) && isObject(chunk.choices[0]) ? chunk.choices[0] : undefined;
    const delta = choice && isObject(choice.delta) ? choice.delta : undefined;
    if (delta) {
      const reasoning = str(delta.reasoning_content) ?? str(delta.reasoning);
      if (reasoning) yield { kind: 'reasoning', text: reasoning };
      const content = str(delta.content);
      if (content) {
        this.answered = true;
        yield { kind: 'token', text: content };
      }
      if (Array.isArray(delta.tool_calls)) this.collectCalls(delta.tool_calls);
    }
    if (choice && typeof choice.finish_reason === 'string') this.finished = true;
    this.noteUsage(chunk.usage);
  }

  /** A whole `chat.completion` (a server that ignored `stream: true`). */
  *completion(body: Json): Generator<UpstreamEvent> {
    this.checkError(body);
    const choice = Array.isArray(body.choices) && isObject(body.choices[0]) ? body.choices[0] : undefined;
    const message = choice && isObject(choice.message) ? choice.message : undefined;
    if (message) {
      const reasoning = str(message.reasoning_content) ?? str(message.reasoning);
      if (reasoning) yield { kind: 'reasoning', text: reasoning };
      const content = str(message.content);
      if (content) {
        this.answered = true;
        yield { kind: 'token', text: content };
      }
      if (Array.isArray(message.tool_calls)) {
        message.tool_calls.forEach((call, index) => this.collectCalls([{ ...(isObject(call) ? call : {}), index }]));
      }
    }
    this.noteUsage(body.usage);
    this.done = true;
  }

  /** What is only known at the end: the collected tool calls, then the usage (or, when cut, the `cut`). */
  *finish(): Generator<UpstreamEvent> {
    if (this.calls.size > 0) {
      const calls: ToolCall[] = [...this.calls.entries()]
        .sort(([a], [b]) => a - b)
        .map(([, call]) => ({ id: call.id, function: { name: call.name, arguments: call.arguments } }));
      yield { kind: 'tool_calls', calls };
    }
    if (this.cut) yield { kind: 'cut', what: 'tool_arguments', limitBytes: this.maxArgumentBytes };
    else if (this.usage) yield { kind: 'usage', ...this.usage };
  }

  private checkError(chunk: Json): void {
    const error = chunk.error;
    if (error === undefined || error === null) return;
    const message = typeof error === 'string' ? error : isObject(error) ? str(error.message) : undefined;
    throw new AgentError('upstream_error', `The agent reported an error: ${cleanMessage(message ?? 'no message', this.apiKey)}`);
  }

  private collectCalls(deltas: unknown[]): void {
    this.answered = true;
    for (const delta of deltas) {
      if (!isObject(delta)) continue;
      if (this.cut) return;
      const index = typeof delta.index === 'number' ? delta.index : this.calls.size;
      if (!this.calls.has(index) && this.calls.size >= MAX_TOOL_CALLS) {
        // One more call than a reply may bring: the calls so far are kept, nothing after is read.
        this.cut = true;
        return;
      }
      const call = this.calls.get(index) ?? { id: '', name: '', arguments: '' };
      // Ids and names are stored and sent back with the history too: they share the arguments' bound.
      if (str(delta.id)) call.id = this.withinArgumentBudget(delta.id as string, Buffer.byteLength(call.id, 'utf8'));
      const fn = isObject(delta.function) ? delta.function : {};
      if (str(fn.name)) call.name += this.withinArgumentBudget(fn.name as string);
      if (str(fn.arguments)) call.arguments += this.withinArgumentBudget(fn.arguments as string);
      this.calls.set(index, call);
    }
  }

  /**
   * `piece`, or the part of it that fits the turn's argument bound (then `cut` is set). `replacing` is the length
   * of what the piece replaces (an id is sent whole each time, not appended), given back first.
   */
  private withinArgumentBudget(piece: string, replacing = 0): string {
    this.argumentBytes -= replacing;
    const bytes = Buffer.byteLength(piece, 'utf8');
    if (this.argumentBytes + bytes <= this.maxArgumentBytes) {
      this.argumentBytes += bytes;
      return piece;
    }
    this.cut = true;
    const kept = prefixWithinBytes(piece, this.maxArgumentBytes - this.argumentBytes);
    this.argumentBytes = this.maxArgumentBytes;
    return kept;
  }

  private noteUsage(usage: unknown): void {
    if (!isObject(usage)) return;
    const input = usage.prompt_tokens ?? usage.input_tokens;
    const output = usage.completion_tokens ?? usage.output_tokens;
    if (typeof input === 'number' || typeof output === 'number') {
      this.usage = { inputTokens: typeof input === 'number' ? input : 0, outputTokens: typeof output === 'number' ? output : 0 };
    }
  }

  private *toolProgress(data: Json): Generator<UpstreamEvent> {
    const name = str(data.tool) ?? 'tool';
    const status = str(data.status) ?? '';
    const label = str(data.label) ?? name;
    if (name === THINKING_TOOL) {
      if (status === 'running' && label && label !== THINKING_TOOL) yield { kind: 'reasoning', text: label };
      return;
    }
    const args = data.args ?? {};
    if (status === 'running') {
      this.answered = true;
      const tid = str(data.toolCallId) || `${name}-${++this.toolSeq}`;
      this.tools.set(tid, { name, preview: label, args, started: this.now() });
      yield { kind: 'tool', name, preview: label, args, tid };
      return;
    }
    if (status === 'completed' || status === 'failed' || status === 'error') {
      this.answered = true;
      const tid = str(data.toolCallId) || [...this.tools.entries()].reverse().find(([, tool]) => tool.name === name)?.[0] || `${name}-${++this.toolSeq}`;
      const running = this.tools.get(tid);
      this.tools.delete(tid);
      const duration = running ? Math.round(this.now() - running.started) / 1000 : 0;
      const isError = status !== 'completed' || data.is_error === true;
      yield { kind: 'tool_complete', name, preview: running?.preview ?? label, args: running?.args ?? args, tid, duration, isError };
    }
  }
}

function requestHeaders(config: AgentConfig, request: TurnRequest, body: Buffer): http.OutgoingHttpHeaders {
  const headers: http.OutgoingHttpHeaders = {
    accept: 'text/event-stream',
    'content-type': 'application/json',
    'content-length': body.length,
  };
  if (config.apiKey) headers.authorization = `Bearer ${config.apiKey}`;
  if (config.kind === 'hermes' && request.sessionId) headers[HERMES_SESSION_HEADER] = request.sessionId;
  return headers;
}

/** Reads at most `max` bytes of a response body (then stops reading). */
async function readBounded(res: http.IncomingMessage, max: number): Promise<{ text: string; complete: boolean }> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of res) {
    const buf = part as Buffer;
    const room = max - size;
    if (buf.length > room) {
      parts.push(buf.subarray(0, room));
      return { text: Buffer.concat(parts).toString('utf8'), complete: false };
    }
    parts.push(buf);
    size += buf.length;
  }
  return { text: Buffer.concat(parts).toString('utf8'), complete: true };
}

export const streamTurn: StreamTurn = (config, request, signal) => run(config, request, signal);

async function* run(config: AgentConfig, request: TurnRequest, signal: AbortSignal): AsyncGenerator<UpstreamEvent> {
  signal.throwIfAborted();
  const url = agentUrl(config.baseUrl, 'chat/completions');
  const model = request.model || config.model;
  const body = Buffer.from(
    JSON.stringify({ model, stream: true, stream_options: { include_usage: true }, messages: request.messages }),
    'utf8',
  );
  // Why the request was torn down by us (idle timeout, cancel): reported instead of the socket's own error.
  let failure: unknown;
  let req: http.ClientRequest | undefined;
  let idle: NodeJS.Timeout | undefined;
  const stop = (reason: unknown) => {
    failure ??= reason;
    req?.destroy();
  };
  const armIdle = () => {
    clearTimeout(idle);
    idle = setTimeout(
      () =>
        stop(
          new AgentError(
            'timeout',
            `The agent sent nothing for ${Math.round(config.idleTimeoutMs / 1000)} s`,
            `It may be busy with a slow tool: try again, or raise ${SETTINGS.agentTimeoutMs.env}.`,
          ),
        ),
      config.idleTimeoutMs,
    );
  };
  const onAbort = () => stop(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  const rethrow = (err: unknown): never => {
    if (signal.aborted) throw signal.reason;
    if (failure) throw failure;
    throw err;
  };

  try {
    armIdle();
    const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const transport = url.protocol === 'https:' ? https : http;
      req = transport.request(url, { method: 'POST', headers: requestHeaders(config, request, body) }, resolve);
      req.on('socket', (socket) => socket.setNoDelay(true));
      req.on('error', (err) => reject(failure ?? connectionError(err, url)));
      req.end(body);
    }).catch(rethrow);
    armIdle();

    const status = res.statusCode ?? 0;
    if (status < 200 || status >= 300) {
      const { text } = await readBounded(res, MAX_ERROR_BODY_BYTES).catch(() => ({ text: '' }));
      if (failure) rethrow(failure);
      throw statusError(status, text, res.headers, config, model);
    }

    const parser = new StreamParser(config.apiKey);
    const type = String(res.headers['content-type'] ?? '').toLowerCase();
    if (!type.includes('text/event-stream')) {
      // A server that ignored `stream`: one JSON completion (or, mislabelled, an SSE body after all).
      const { text, complete } = await readBounded(res, MAX_ONESHOT_BYTES).catch(rethrow);
      if (!complete) throw new AgentError('upstream_error', `The agent's answer exceeds ${MAX_ONESHOT_BYTES / (1024 * 1024)} MiB`);
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      if (isObject(parsed)) yield* parser.completion(parsed);
      else {
        const lines = new LineSplitter();
        for (const line of lines.push(Buffer.from(text + '\n', 'utf8'))) yield* parser.line(line);
        if (!parser.done && !parser.finished && parser.answered) throw new AgentError('upstream_error', STREAM_ENDED_EARLY);
      }
    } else {
      const lines = new LineSplitter();
      try {
        for await (const part of res) {
          armIdle();
          for (const line of lines.push(part as Buffer)) {
            yield* parser.line(line);
            if (parser.done || parser.cut) break;
          }
          if (parser.done || parser.cut) break;
        }
        if (!parser.done && !parser.cut) {
          const last = lines.rest();
          if (last !== undefined) yield* parser.line(last);
        }
      } catch (err) {
        if (err instanceof AgentError && !failure) throw err;
        if (signal.aborted || failure) rethrow(err);
        throw new AgentError('upstream_error', STREAM_ENDED_EARLY);
      }
      if (failure) rethrow(failure);
      if (!parser.done && !parser.cut && !parser.finished && parser.answered) throw new AgentError('upstream_error', STREAM_ENDED_EARLY);
    }
    if (!parser.answered) {
      throw new AgentError('no_response', 'The agent ended its turn without saying anything', 'Try again, or check the model in Settings → Agent.');
    }
    yield* parser.finish();
  } finally {
    clearTimeout(idle);
    signal.removeEventListener('abort', onAbort);
    // After [DONE], on an error or when the consumer stops early: the connection is not ours to keep.
    (req as http.ClientRequest | undefined)?.destroy();
  }
}
