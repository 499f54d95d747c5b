// The agent side of a turn (docs/spec-notes.md, "Chat: agent side"): one POST to an OpenAI-compatible
// `/v1/chat/completions`, its body read in layers (stream/: bytes → lines → server-sent events → the decoder of
// each dialect) and turned into UpstreamEvents as each event arrives. Plain node http(s) rather than fetch: Nagle
// off on the socket, the request destroyed the moment the turn ends, and every read bounded (a line, an event,
// an error body, a one-shot answer). One abort mechanism (abortable.ts): the turn's signal, combined with the idle
// deadline's, races every wait; the request is destroyed in one `finally`.
import http from 'node:http';
import https from 'node:https';
import { SETTINGS } from '../settings/table.js';
import { abortable, untilAborted } from './abortable.js';
import { LineDecoder } from './stream/lines.js';
import { StreamParser } from './stream/parser.js';
import { SseDecoder } from './stream/sse.js';
import { AgentError, type AgentConfig, type StreamTurn, type TurnRequest, type UpstreamEvent } from './types.js';
import { dialectOf } from './dialect/index.js';
import { connectionError, errorBodyMessage, notCompatible, RETRY_HINT, statusError, TOO_LONG_ANSWER_HINT } from './upstream-errors.js';
import { refusesTools, ToolsRefused } from './tools/refusal.js';

/** An error status's body is read this far for its message, no further. */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;
/** A one-shot JSON answer (a server that ignored `stream`) is read this far. */
export const MAX_ONESHOT_BYTES = 4 * 1024 * 1024;
export { HERMES_SESSION_HEADER } from './dialect/index.js';
export const STREAM_ENDED_EARLY = "The agent's answer broke off: its connection closed before the end.";
export const NO_RESPONSE = 'The agent ended its turn without saying anything.';

function requestHeaders(config: AgentConfig, request: TurnRequest, body: Buffer): http.OutgoingHttpHeaders {
  const headers: http.OutgoingHttpHeaders = {
    accept: 'text/event-stream',
    'content-type': 'application/json',
    'content-length': body.length,
    ...dialectOf(config.kind).turnHeaders(config, request),
  };
  if (config.apiKey) headers.authorization = `Bearer ${config.apiKey}`;
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

/**
 * How the body ended, judged in one place: complete (then finish() says what is only known at the end), or
 * failed. A cancel or a deadline is no outcome here: it is the signal's reason, thrown where it interrupted.
 */
type BodyOutcome = { kind: 'answered' } | { kind: 'failed'; error: AgentError };

function outcomeOf(parser: StreamParser, endedEarly: boolean): BodyOutcome {
  if (endedEarly) return { kind: 'failed', error: new AgentError('upstream_error', STREAM_ENDED_EARLY, RETRY_HINT) };
  if (!parser.answered) return { kind: 'failed', error: new AgentError('no_response', NO_RESPONSE, RETRY_HINT) };
  return { kind: 'answered' };
}

/** Server-sent events: bytes → lines → events → the parser, as each chunk arrives. */
async function* readEvents(res: http.IncomingMessage, parser: StreamParser, signal: AbortSignal, onBytes: () => void): AsyncGenerator<UpstreamEvent, BodyOutcome> {
  const lines = new LineDecoder();
  const events = new SseDecoder();
  try {
    for await (const part of abortable(res as AsyncIterable<Buffer>, signal)) {
      onBytes();
      for (const line of lines.push(part)) {
        const event = events.line(line);
        if (event) yield* parser.event(event);
        if (parser.over) return outcomeOf(parser, false);
      }
    }
  } catch (err) {
    if (signal.aborted || err instanceof AgentError) throw signal.aborted ? signal.reason : err;
    // The socket failed under us (reset, closed mid-chunk): what came is not the whole answer.
    return outcomeOf(parser, true);
  }
  const last = lines.end();
  const event = (last === undefined ? undefined : events.line(last)) ?? events.end();
  if (event) yield* parser.event(event);
  return outcomeOf(parser, !parser.over && !parser.finished && parser.answered);
}

/** A server that ignored `stream`: one JSON completion, or (mislabelled) an SSE body after all. */
async function* readOneShot(res: http.IncomingMessage, parser: StreamParser, signal: AbortSignal): AsyncGenerator<UpstreamEvent, BodyOutcome> {
  const { text, complete } = await untilAborted(readBounded(res, MAX_ONESHOT_BYTES), signal);
  if (!complete) return { kind: 'failed', error: new AgentError('upstream_error', `The agent's answer exceeds ${MAX_ONESHOT_BYTES / (1024 * 1024)} MiB.`, TOO_LONG_ANSWER_HINT) };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
    yield* parser.completion(parsed as Record<string, unknown>);
    return outcomeOf(parser, false);
  }
  const events = new SseDecoder();
  for (const line of new LineDecoder().push(Buffer.from(`${text}\n\n`, 'utf8'))) {
    const event = events.line(line);
    if (event) yield* parser.event(event);
  }
  return outcomeOf(parser, !parser.over && !parser.finished && parser.answered);
}

function idleError(config: AgentConfig): AgentError {
  return new AgentError(
    'timeout',
    `The agent sent nothing for ${Math.round(config.idleTimeoutMs / 1000)} s.`,
    `Try again; an agent busy with a slow tool may need a larger ${SETTINGS.agentTimeoutMs.env}.`,
  );
}

export const streamTurn: StreamTurn = (config, request, signal) => run(config, request, signal);

async function* run(config: AgentConfig, request: TurnRequest, turnSignal: AbortSignal): AsyncGenerator<UpstreamEvent> {
  turnSignal.throwIfAborted();
  const dialect = dialectOf(config.kind);
  const url = dialect.turnUrl(config.baseUrl);
  const model = request.model || config.model;
  const body = Buffer.from(JSON.stringify(dialect.turnBody(model, request)), 'utf8');
  // No byte from the agent for idleTimeoutMs aborts like a cancel, with its own reason; every byte re-arms it.
  const idle = new AbortController();
  const idleTimer = setTimeout(() => idle.abort(idleError(config)), config.idleTimeoutMs);
  const signal = AbortSignal.any([turnSignal, idle.signal]);
  let req: http.ClientRequest | undefined;
  try {
    const res = await untilAborted(
      new Promise<http.IncomingMessage>((resolve, reject) => {
        const transport = url.protocol === 'https:' ? https : http;
        req = transport.request(url, { method: 'POST', headers: requestHeaders(config, request, body) }, resolve);
        req.on('socket', (socket) => socket.setNoDelay(true));
        req.on('error', (err) => reject(connectionError(err, url)));
        req.end(body);
      }),
      signal,
    );
    idleTimer.refresh();
    const status = res.statusCode ?? 0;
    if (status < 200 || status >= 300) {
      const { text } = await untilAborted(readBounded(res, MAX_ERROR_BODY_BYTES), signal).catch(() => {
        if (signal.aborted) throw signal.reason;
        return { text: '' };
      });
      // Refused for the tools Satchel offered: the tool loop sends the turn again without them (tools/loop.ts).
      if (request.tools?.length && refusesTools(status, errorBodyMessage(text))) throw new ToolsRefused(status);
      throw statusError(status, text, res.headers, config, model);
    }
    const parser = new StreamParser(config.apiKey);
    const contentType = String(res.headers['content-type'] ?? '').toLowerCase();
    // A web page where the API should be: the address is of something else (a router, a site, a web UI).
    if (contentType.includes('text/html')) throw notCompatible(config, `POST /v1/chat/completions: a web page`);
    const isStream = contentType.includes('text/event-stream');
    const outcome = isStream ? yield* readEvents(res, parser, signal, () => idleTimer.refresh()) : yield* readOneShot(res, parser, signal);
    if (outcome.kind === 'failed') throw outcome.error;
    yield* parser.finish();
  } finally {
    clearTimeout(idleTimer);
    // After [DONE], on an error, at an abort or when the consumer stops early: the connection is not ours to keep.
    (req as http.ClientRequest | undefined)?.destroy();
  }
}
