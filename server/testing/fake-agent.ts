// A fake OpenAI-compatible agent for tests: plain node http on 127.0.0.1 (a free port), scripted streams.
//
//   const agent = await startFakeAgent({ apiKey: 'k', hermes: true });   // both optional
//   agent.baseUrl                     // 'http://127.0.0.1:PORT' (append '/v1' to test that form)
//   agent.next(reply('Hello there', { reasoning: 'hm', usage: [12, 3] }));  // the next completion's answer
//   agent.next({ status: 429, headers: { 'retry-after': '7' } });          // queued in order; when the
//                                      // queue is empty, `agent.fallback` (default: reply('ok')) answers
//   agent.requests                    // every request: { method, path, headers, body (parsed JSON or undefined) }
//   agent.titleScript = reply('Trip to Lisbon');  // Satchel's background title requests (agent/title.ts) are
//   agent.titleRequests               // answered by titleScript (default: 503, so the derived title stays) and
//                                     // recorded here, not in `requests`, and never take a queued script
//   await agent.close();
//
// A Script is one of:
//   { frames: Frame[], end?: 'done' | 'cut' | 'stall' | 'close', tokensPerSecond?: number }
//       an SSE stream: each frame written as it comes, `tokensPerSecond` paces the content frames (0 = no
//       pacing; `frames` may be a generator, written with backpressure); 'done' (default) ends with `data: [DONE]`, 'cut' destroys the socket mid-stream, 'stall'
//       stops writing and keeps the connection open until the client goes, 'close' ends without [DONE].
//   { status: number, body?: unknown, headers?: Record<string, string> }   an error status (JSON body)
//   { json: unknown }    a one-shot JSON completion answered to a streaming request
// A Frame is a chunk object (written as `data: <json>`), or { event, data } (named event), or { comment },
// or { raw } (written as is). Helpers below build the realistic ones: reply(), contentChunk(), toolProgress().
//
// With `apiKey`, a request without `Authorization: Bearer <apiKey>` gets 401 (with `openModels`, GET /v1/models
// excepted: the list is open to anyone, as on many servers). `models` (default ['fake-model'])
// are listed by GET /v1/models; a completion naming another model gets 404 "model … not found". With
// `hermes: true`, GET /v1/capabilities answers like Hermes Agent's gateway, and GET /v1/health (without a key)
// with its `"platform": "hermes-agent"` (404 otherwise).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { isTitleRequest } from '../agent/title.js';

export type Frame =
  | Record<string, unknown>
  | { event: string; data: unknown }
  | { comment: string }
  | { raw: string };

export interface StreamScript {
  /** Written in order; a generator makes frames as they are written (a flood never held in memory whole). */
  frames: Iterable<Frame> | AsyncIterable<Frame>;
  end?: 'done' | 'cut' | 'stall' | 'close';
  tokensPerSecond?: number;
}
/** A stream whose frames are a plain list (what reply() builds): a test may still edit it before queueing. */
export type ListScript = StreamScript & { frames: Frame[] };
export interface StatusScript {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}
export interface JsonScript {
  json: unknown;
}
export type Script = StreamScript | StatusScript | JsonScript;

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

export interface FakeAgentOptions {
  apiKey?: string;
  hermes?: boolean;
  models?: string[];
  /** GET /v1/models answers without the key. */
  openModels?: boolean;
}

export interface FakeAgent {
  baseUrl: string;
  port: number;
  requests: RecordedRequest[];
  /** Answers the next chat completion (queued in call order). */
  next(script: Script): void;
  fallback: Script;
  titleRequests: RecordedRequest[];
  titleScript: Script;
  close(): Promise<void>;
}

const DEFAULT_MODEL = 'fake-model';
/** What the fake's GET /v1/capabilities answers in hermes mode. */
export const HERMES_CAPABILITIES = { object: 'capabilities', server: 'hermes-agent', features: { session_header: 'X-Hermes-Session-Id', tool_progress: true } };
/** What the fake's GET /v1/health answers in hermes mode, as the real gateway does: without a key. */
export const HERMES_HEALTH = { status: 'ok', platform: 'hermes-agent', version: 'fake' };
const MAX_BODY_BYTES = 32 * 1024 * 1024;

let chunkSeq = 0;
export function chunk(delta: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: `chatcmpl-fake-${++chunkSeq}`,
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model: DEFAULT_MODEL,
    choices: [{ index: 0, delta, finish_reason: null }],
    ...extra,
  };
}

export const contentChunk = (text: string) => chunk({ content: text });
export const reasoningChunk = (text: string) => chunk({ reasoning_content: text });
export const usageChunk = (prompt: number, completion: number) => ({
  id: `chatcmpl-fake-${++chunkSeq}`,
  object: 'chat.completion.chunk',
  choices: [],
  usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
});
export const toolCallChunk = (index: number, call: { id?: string; name?: string; arguments?: string }) =>
  chunk({
    tool_calls: [
      { index, ...(call.id ? { id: call.id, type: 'function' } : {}), function: { ...(call.name ? { name: call.name } : {}), arguments: call.arguments ?? '' } },
    ],
  });
export const toolProgress = (tool: string, status: 'running' | 'completed', toolCallId: string, label = tool, emoji = '🔧') => ({
  event: 'hermes.tool.progress',
  data: { tool, emoji, label, toolCallId, status },
});

/** Text split into word tokens (each keeps its leading space), as a model streams them. */
export function tokens(text: string): string[] {
  return text.match(/\s*\S+|\s+$/g) ?? [];
}

/** A realistic stream: role chunk, optional reasoning, the text token by token, a keepalive, usage, [DONE]. */
export function reply(
  text: string,
  opts: { reasoning?: string; usage?: [number, number]; tokensPerSecond?: number } = {},
): ListScript {
  const frames: Frame[] = [chunk({ role: 'assistant', content: '' })];
  if (opts.reasoning) frames.push(...tokens(opts.reasoning).map(reasoningChunk));
  frames.push({ comment: 'keepalive' });
  frames.push(...tokens(text).map(contentChunk));
  frames.push(chunk({}, { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }));
  const [prompt, completion] = opts.usage ?? [10, tokens(text).length];
  frames.push(usageChunk(prompt, completion));
  return { frames, tokensPerSecond: opts.tokensPerSecond };
}

/** A one-shot completion object, as a server that ignores `stream` answers. */
export function completion(text: string, usage: [number, number] = [10, 5]): JsonScript {
  return {
    json: {
      id: 'chatcmpl-fake-json',
      object: 'chat.completion',
      model: DEFAULT_MODEL,
      choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
      usage: { prompt_tokens: usage[0], completion_tokens: usage[1], total_tokens: usage[0] + usage[1] },
    },
  };
}

function isContentFrame(frame: Frame): boolean {
  const choices = (frame as { choices?: { delta?: { content?: unknown } }[] }).choices;
  return typeof choices?.[0]?.delta?.content === 'string' && choices[0].delta.content !== '';
}

function frameText(frame: Frame): string {
  if ('comment' in frame && typeof frame.comment === 'string') return `: ${frame.comment}\n\n`;
  if ('raw' in frame && typeof frame.raw === 'string') return frame.raw;
  if ('event' in frame && typeof frame.event === 'string' && 'data' in frame) {
    return `event: ${frame.event}\ndata: ${JSON.stringify(frame.data)}\n\n`;
  }
  return `data: ${JSON.stringify(frame)}\n\n`;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

async function readBody(req: http.IncomingMessage): Promise<unknown> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of req) {
    size += (part as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Error('fake agent: request body too large');
    parts.push(part as Buffer);
  }
  const text = Buffer.concat(parts).toString('utf8');
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Resolves when `res` can take more, or is gone. */
function drained(res: http.ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

async function stream(req: http.IncomingMessage, res: http.ServerResponse, script: StreamScript): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  res.flushHeaders();
  res.socket?.setNoDelay(true);
  let gone = false;
  res.on('close', () => (gone = true));
  const gap = script.tokensPerSecond ? 1000 / script.tokensPerSecond : 0;
  for await (const frame of script.frames) {
    if (gone) return;
    if (gap && isContentFrame(frame)) await sleep(gap);
    // Backpressure: a generated flood waits for the client to read instead of piling up in this process.
    if (!res.write(frameText(frame))) await drained(res);
  }
  if (gone) return;
  const end = script.end ?? 'done';
  if (end === 'done') res.end('data: [DONE]\n\n');
  else if (end === 'close') res.end();
  else if (end === 'cut') {
    // Give the frames already written a moment to leave, then drop the connection without a clean end.
    await sleep(20);
    req.socket.destroy();
  }
  // 'stall': nothing more; the connection stays open until the client gives up.
}

export async function startFakeAgent(options: FakeAgentOptions = {}): Promise<FakeAgent> {
  const models = options.models ?? [DEFAULT_MODEL];
  const queue: Script[] = [];
  const requests: RecordedRequest[] = [];
  const sockets = new Set<import('node:net').Socket>();

  const agent: FakeAgent = {
    baseUrl: '',
    port: 0,
    requests,
    next: (script) => void queue.push(script),
    fallback: reply('ok'),
    titleRequests: [],
    titleScript: { status: 503 },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const body = await readBody(req);
    const recorded = { method: req.method ?? 'GET', path: url.pathname, headers: req.headers, body };
    const title = isTitleRequest((body as { messages?: { content?: unknown }[] } | undefined)?.messages);
    (title ? agent.titleRequests : requests).push(recorded);
    if (req.method === 'GET' && url.pathname === '/v1/health' && options.hermes) {
      return sendJson(res, 200, HERMES_HEALTH);
    }
    const open = options.openModels && req.method === 'GET' && url.pathname === '/v1/models';
    if (!open && options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}`) {
      return sendJson(res, 401, { error: { message: 'Invalid API key', type: 'invalid_request_error', code: 'invalid_api_key' } });
    }
    if (req.method === 'GET' && url.pathname === '/v1/models') {
      return sendJson(res, 200, { object: 'list', data: models.map((id) => ({ id, object: 'model', owned_by: 'fake' })) });
    }
    if (req.method === 'GET' && url.pathname === '/v1/capabilities' && options.hermes) {
      return sendJson(res, 200, HERMES_CAPABILITIES);
    }
    if (req.method === 'POST' && url.pathname === '/v1/chat/completions') {
      const model = (body as { model?: unknown } | undefined)?.model;
      if (typeof model === 'string' && !models.includes(model)) {
        return sendJson(res, 404, { error: { message: `The model \`${model}\` does not exist or you do not have access to it.`, type: 'invalid_request_error', code: 'model_not_found' } });
      }
      const script = title ? agent.titleScript : (queue.shift() ?? agent.fallback);
      if ('status' in script) return sendJson(res, script.status, script.body ?? { error: { message: `fake status ${script.status}` } }, script.headers);
      if ('json' in script) return sendJson(res, 200, script.json);
      return stream(req, res, script);
    }
    sendJson(res, 404, { error: { message: 'Not found' } });
  };

  const server = http.createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  agent.port = (server.address() as AddressInfo).port;
  agent.baseUrl = `http://127.0.0.1:${agent.port}`;
  return agent;
}
