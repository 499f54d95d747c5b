// A reply on one long line (issue 21, finding 1): how long `GET /health` waits while Satchel streams it. The agent
// writes 200,000 `"a "` content tokens without a line break and without pacing (as fast as the socket takes them);
// a client watches the turn's stream while another polls /health. Needs `npm run build`.
//   node bench/long-line.mjs [--tokens 200000] [--runs 3] [--server <path to dist/server/index.js>]
// `--server` measures another build (for example main's, for the before/after rows in docs/benchmarks.md).
//
// Layout as in bench/chat.mjs: the server in a child pinned to core 0; the agent and both clients here on core 1.
import fs from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { forkServer, machine, median, tempDir } from './lib.mjs';

const { values } = parseArgs({
  options: {
    tokens: { type: 'string', default: '200000' },
    runs: { type: 'string', default: '3' },
    server: { type: 'string' },
  },
});
const TOKENS = Number(values.tokens);
const RUNS = Number(values.runs);
const SERVER_MODULE = values.server ? pathToFileURL(path.resolve(values.server)).href : new URL('../dist/server/index.js', import.meta.url).href;
/** How often /health is asked while the reply streams (one request at a time). */
const HEALTH_EVERY_MS = 10;
/** Content chunks per socket write: the agent stays far ahead of Satchel, as a hostile one would. */
const CHUNKS_PER_WRITE = 500;
/** A run that has not ended by then is reported as stuck (the quadratic redactor needed about a minute). */
const RUN_DEADLINE_MS = 10 * 60_000;
const TOKEN = 'bench-token';
const MODEL = 'fake-model';

const chunk = (content) => `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', model: MODEL, choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;

/** Opened when the client's watch of the current turn is connected. */
let watching = { promise: Promise.resolve(), resolve() {} };
const { isTitleRequest } = await import(new URL('../dist/server/agent/title.js', import.meta.url).href);
const agent = http.createServer(async (req, res) => {
  const parts = [];
  for await (const part of req) parts.push(part);
  if (req.method !== 'POST' || !req.url.endsWith('/chat/completions')) {
    res.writeHead(404).end();
    return;
  }
  // Satchel's background title request (server/agent/title.ts) is refused: one flood at a time is measured.
  if (isTitleRequest(JSON.parse(Buffer.concat(parts).toString()).messages)) {
    res.writeHead(503).end();
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.flushHeaders();
  // Tokens start once the client watches the stream (as in bench/chat.mjs): otherwise the whole reply would wait
  // in the turn's replay log and reach the watcher in one burst, which is not what is measured.
  await watching.promise;
  const batch = chunk('a ').repeat(CHUNKS_PER_WRITE);
  for (let sent = 0; sent < TOKENS; sent += CHUNKS_PER_WRITE) {
    if (res.destroyed) return;
    if (!res.write(batch)) await new Promise((r) => res.once('drain', r));
    // Let this process's client read its frames too (agent and client share a core).
    await new Promise((r) => setImmediate(r));
  }
  res.write(`data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', model: MODEL, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`);
  res.end('data: [DONE]\n\n');
});
await new Promise((r) => agent.listen(0, '127.0.0.1', r));

function request(port, method, pathname, body) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path: pathname, agent: false, headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode, body: text && res.headers['content-type']?.includes('json') ? JSON.parse(text) : text }));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/**
 * Reads the turn's SSE stream to its end, resuming after the last frame seen when the server drops this watcher
 * as stalled (server/http/event-stream.ts MAX_BUFFERED_BYTES: the agent here floods faster than one client reads).
 * Resolves with the bytes of frames read, whether `done` came, and how often it resumed.
 */
async function watch(port, streamId) {
  const state = { bytes: 0, done: false, gone: false, seq: undefined, resumed: -1 };
  while (!state.done && !state.gone && state.resumed < 1000) {
    state.resumed++;
    const after = state.seq === undefined ? '' : `&after_seq=${state.seq}`;
    await new Promise((resolve) => {
      const req = http.request({ host: '127.0.0.1', port, path: `/api/chat/stream?stream_id=${streamId}${after}`, agent: false, headers: { Authorization: `Bearer ${TOKEN}` } }, (res) => {
        if (res.statusCode !== 200) state.gone = true; // the turn is over and forgotten
        watching.resolve();
        // Cheap on purpose (this process also runs the agent): the last frame id, `done`, and bytes, per read.
        let tail = '';
        res.setEncoding('utf8');
        res.on('data', (c) => {
          state.bytes += c.length;
          const text = tail + c;
          const id = text.lastIndexOf('\nid: ');
          if (id !== -1) {
            const line = text.slice(id + 5, text.indexOf('\n', id + 5) >>> 0);
            const seq = Number(line.slice(line.lastIndexOf(':') + 1));
            if (Number.isInteger(seq) && seq > 0) state.seq = seq;
          }
          if (text.includes('event: done')) state.done = true;
          tail = text.slice(-64);
        });
        res.on('end', resolve);
        res.on('error', resolve);
        res.on('aborted', resolve);
      });
      req.on('error', resolve);
      req.end();
    });
  }
  return state;
}

async function startSatchel() {
  const stateDir = await tempDir('satchel-bench-long-line-');
  const script = `
    const { startServer } = await import(process.env.BENCH_SERVER_MODULE);
    const s = await startServer({ host: '127.0.0.1', port: 0, stateDir: process.env.BENCH_STATE_DIR, token: '${TOKEN}' });
    process.on('message', (m) => { if (m === 'exit') process.exit(0); });
    process.send({ port: s.port });
  `;
  const { ready, stop: stopChild } = await forkServer(script, {
    stateDir,
    serverModule: SERVER_MODULE,
    agentUrl: `http://127.0.0.1:${agent.address().port}`,
    model: MODEL,
  });
  const stop = async () => {
    await stopChild();
    await fs.rm(stateDir, { recursive: true, force: true });
  };
  return { port: ready.port, stop };
}

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((sorted.length * p) / 100) - 1)];

async function run(server) {
  watching = (() => { let resolve; const promise = new Promise((r) => (resolve = r)); return { promise, resolve }; })();
  const session = (await request(server.port, 'POST', '/api/session/new', {})).body.session.session_id;
  const started = await request(server.port, 'POST', '/api/chat/start', { session_id: session, message: 'long line please' });
  if (started.status !== 200) throw new Error(`chat/start: ${started.status} ${JSON.stringify(started.body)}`);
  const t0 = performance.now();
  let streaming = true;
  const watched = watch(server.port, started.body.stream_id).finally(() => (streaming = false));
  const health = [];
  while (streaming && performance.now() - t0 < RUN_DEADLINE_MS) {
    const h0 = performance.now();
    const res = await request(server.port, 'GET', '/health');
    if (res.status !== 200) throw new Error(`/health: ${res.status}`);
    health.push(performance.now() - h0);
    await sleep(HEALTH_EVERY_MS);
  }
  const { bytes, done, resumed } = await watched;
  const sorted = health.sort((a, b) => a - b);
  return { turnMs: performance.now() - t0, bytes, done, resumed, samples: sorted.length, p50: pct(sorted, 50), p99: pct(sorted, 99), max: sorted.at(-1) };
}

const server = await startSatchel();
try {
  console.log(`${machine()}; server ${SERVER_MODULE}`);
  console.log(`one line of ${TOKENS.toLocaleString('en')} "a " tokens, unpaced; /health asked every ${HEALTH_EVERY_MS} ms while it streams`);
  const rows = [];
  for (let i = 0; i < RUNS; i++) {
    const r = await run(server);
    rows.push(r);
    console.log(`run ${i + 1}: turn ${r.turnMs.toFixed(0)} ms, ${r.bytes} bytes of frames read (${r.resumed} resumes), done ${r.done}; /health n=${r.samples} p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms, max ${r.max.toFixed(1)} ms`);
  }
  const m = (k) => median(rows.map((r) => r[k]));
  console.log(`median of ${RUNS}: turn ${m('turnMs').toFixed(0)} ms; /health p50 ${m('p50').toFixed(2)} ms, p99 ${m('p99').toFixed(2)} ms, max ${m('max').toFixed(1)} ms`);
} finally {
  await server.stop();
  agent.close();
}
