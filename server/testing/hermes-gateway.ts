// The REAL Hermes Agent gateway for tests, with a fake model behind it that records every request in full.
// The gateway is the one ../shared/tools/hermes-gateway.sh sets up (read its header): its venv and the
// extracted source in $SATCHEL_TEST_HERMES_RUN (default $TMPDIR/hermes-gateway, the tool's RUN). Each start
// gets its own HERMES_HOME (config, key, database) in a temp folder and free loopback ports, so it never
// collides with another gateway on the machine. The fake model runs in the test's own process.
//
//   const setup = findGatewaySetup();            // { python, src } or { missing: 'why' }
//   const model = await startFakeModel();        // model.requests: every chat completion, its messages in full
//   const gw = await startGateway(setup, model.baseUrl, KEY);   // gw.baseUrl; await gw.stop() on every path
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

/**
 * The gateway needs ~5 s to become healthy on an idle machine; with eight helpers on two cores it took 26 s by
 * itself (measured), more beside a test run, so 30 s failed there.
 */
export const GATEWAY_START_MS = 90_000;
/** How long the gateway may take to exit after SIGTERM (it takes ~3 s) before it is killed. */
export const GATEWAY_STOP_MS = 8_000;
/** A slow reply streams a piece this often: slow enough that Stop lands mid-reply, fast enough to start at once. */
export const SLOW_PIECE_MS = 50;
/** A slow reply gives up after this many pieces (10 s) if nobody closes it. */
export const SLOW_PIECES_MAX = 200;
const HEALTH_POLL_MS = 100;

export type GatewaySetup = { python: string; src: string } | { missing: string };

export function findGatewaySetup(env: NodeJS.ProcessEnv = process.env): GatewaySetup {
  const run = env.SATCHEL_TEST_HERMES_RUN || path.join(env.TMPDIR || '/tmp', 'hermes-gateway');
  const python = path.join(run, 'venv', 'bin', 'python');
  const src = path.join(run, 'src');
  if (!fs.existsSync(python) || !fs.existsSync(path.join(src, 'hermes_cli', 'main.py'))) {
    return { missing: `no Hermes gateway set up in ${run} (run ../shared/tools/hermes-gateway.sh setup once the two mirrors are fetched; SATCHEL_TEST_HERMES_RUN names another folder)` };
  }
  return { python, src };
}

/** One message as the model received it: its role, its text, and whether it carried tool calls. */
export interface ModelMessage {
  role: string;
  text: string;
  toolCalls: boolean;
}

export interface FakeModel {
  baseUrl: string;
  /** Every chat completion the gateway asked for, in order (the agent loop's and any other). */
  requests: { messages: ModelMessage[]; tools: string[] }[];
  /** While true, a text answer streams slowly (SLOW_PIECE_MS a piece) until the gateway closes it. */
  slow: boolean;
  /** While set, a text answer writes its first piece, then waits for this before it ends (a reply held mid-stream). */
  hold?: Promise<void>;
  close(): Promise<void>;
}

const textOf = (c: unknown): string =>
  typeof c === 'string' ? c : Array.isArray(c) ? c.map((p) => (typeof p?.text === 'string' ? p.text : '')).join('') : '';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The fake model of the shared tool, recording messages in full: a call of the gateway's `todo` tool when the
 * last user message mentions "todo" and no tool result follows it, else a text answer numbered by request.
 */
export async function startFakeModel(): Promise<FakeModel> {
  const model: FakeModel = { baseUrl: '', requests: [], slow: false, close: async () => {} };
  const server = http.createServer(async (req, res) => {
    let raw = '';
    for await (const piece of req) raw += piece;
    const url = (req.url ?? '').split('?')[0]!;
    if (req.method === 'GET' && url.endsWith('/models')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ object: 'list', data: [{ id: 'fake-model', object: 'model', owned_by: 'fake', context_length: 131072 }] }));
    }
    if (req.method !== 'POST' || !url.endsWith('/chat/completions')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      return res.end('{"error":{"message":"not found"}}');
    }
    let body: { messages?: { role?: string; content?: unknown; tool_calls?: unknown[] }[]; tools?: { function?: { name?: string } }[]; stream?: boolean };
    try {
      body = JSON.parse(raw || '{}');
    } catch {
      body = {};
    }
    const messages = (body.messages ?? []).map((m) => ({ role: String(m.role), text: textOf(m.content), toolCalls: Array.isArray(m.tool_calls) && m.tool_calls.length > 0 }));
    const tools = (body.tools ?? []).map((t) => String(t.function?.name));
    model.requests.push({ messages, tools });
    const n = model.requests.length;
    const lastUser = messages.findLastIndex((m) => m.role === 'user');
    const toolAfter = messages.slice(lastUser + 1).some((m) => m.role === 'tool');
    const callTool = tools.includes('todo') && !toolAfter && /todo/i.test(messages[lastUser]?.text ?? '');
    const base = { id: `chatcmpl-fake-${n}`, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: 'fake-model' };
    const args = JSON.stringify({ todos: [{ id: '1', content: 'Buy figs', status: 'pending' }], merge: false });
    const text = toolAfter ? `Answer ${n}: one item is on the todo list.` : `Answer ${n} from the fake model.`;
    if (!body.stream) {
      const message = callTool
        ? { role: 'assistant', content: null, tool_calls: [{ id: `call_${n}`, type: 'function', function: { name: 'todo', arguments: args } }] }
        : { role: 'assistant', content: text };
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ ...base, object: 'chat.completion', choices: [{ index: 0, message, finish_reason: callTool ? 'tool_calls' : 'stop' }] }));
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const send = (o: unknown) => res.write(`data: ${JSON.stringify(o)}\n\n`);
    if (callTool) {
      send({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: null, tool_calls: [{ index: 0, id: `call_${n}`, type: 'function', function: { name: 'todo', arguments: args } }] }, finish_reason: null }] });
      send({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] });
    } else {
      send({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] });
      send({ ...base, choices: [{ index: 0, delta: { content: text }, finish_reason: null }] });
      if (model.hold) {
        await model.hold;
        send({ ...base, choices: [{ index: 0, delta: { content: ' (held, then finished)' }, finish_reason: null }] });
      }
      if (model.slow) {
        for (let i = 0; i < SLOW_PIECES_MAX && !res.destroyed && !res.writableEnded; i++) {
          await sleep(SLOW_PIECE_MS);
          if (res.destroyed) break;
          send({ ...base, choices: [{ index: 0, delta: { content: ' and on' }, finish_reason: null }] });
        }
      }
      send({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
    }
    res.write('data: [DONE]\n\n');
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  model.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  model.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return model;
}

async function freePort(): Promise<number> {
  const probe = http.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((r) => probe.close(r));
  return port;
}

export interface RunningGateway {
  baseUrl: string;
  /** The gateway's own database of sessions (sqlite). */
  home: string;
  /** SIGTERM to its process group, SIGKILL past GATEWAY_STOP_MS; removes its home. Safe to call twice. */
  stop(): Promise<void>;
}

/** Starts the real gateway (its API server on a free port, key `apiKey`) in front of `modelBaseUrl`. */
export async function startGateway(setup: { python: string; src: string }, modelBaseUrl: string, apiKey: string): Promise<RunningGateway> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-hermes-home-'));
  const port = await freePort();
  fs.writeFileSync(
    path.join(home, 'config.yaml'),
    `model:\n  default: fake-model\n  provider: custom\n  base_url: ${modelBaseUrl}\n  api_key: fake-key\n  context_length: 131072\n`,
  );
  fs.writeFileSync(path.join(home, '.env'), `API_SERVER_ENABLED=true\nAPI_SERVER_KEY=${apiKey}\nAPI_SERVER_HOST=127.0.0.1\nAPI_SERVER_PORT=${port}\n`);
  const out = fs.openSync(path.join(home, 'gateway.out'), 'w');
  // Its own process group (detached), so stop() ends it and whatever it started, and nothing else.
  const child: ChildProcess = spawn(setup.python, ['-m', 'hermes_cli.main', 'gateway', 'run'], {
    cwd: setup.src,
    env: { ...process.env, HERMES_HOME: home },
    detached: true,
    stdio: ['ignore', out, out],
  });
  fs.closeSync(out);
  let exited = false;
  const gone = new Promise<void>((resolve) => child.once('exit', () => ((exited = true), resolve())));
  const kill = (signal: NodeJS.Signals) => {
    if (exited || child.pid === undefined) return;
    try {
      process.kill(-child.pid, signal);
    } catch {
      // Already gone.
    }
  };
  // A test run that ends on an error or a timeout still leaves no gateway behind.
  const onExit = () => kill('SIGKILL');
  process.once('exit', onExit);
  const stop = async () => {
    process.off('exit', onExit);
    kill('SIGTERM');
    const timer = setTimeout(() => kill('SIGKILL'), GATEWAY_STOP_MS);
    await gone;
    clearTimeout(timer);
    fs.rmSync(home, { recursive: true, force: true });
  };
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + GATEWAY_START_MS;
  while (Date.now() < deadline) {
    if (exited) break;
    try {
      if ((await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(1000) })).ok) return { baseUrl, home, stop };
    } catch {
      // Not listening yet.
    }
    await sleep(HEALTH_POLL_MS);
  }
  // Read before stop(), which ends it: only an exit on its own is worth saying.
  const died = exited;
  const log = fs.existsSync(path.join(home, 'gateway.out')) ? fs.readFileSync(path.join(home, 'gateway.out'), 'utf8').slice(-2000) : '';
  await stop();
  throw new Error(`the Hermes gateway did not become healthy within ${GATEWAY_START_MS} ms${died ? ' (it exited)' : ''}:\n${log}`);
}
