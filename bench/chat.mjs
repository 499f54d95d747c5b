// The conversation's streaming path: how much latency Satchel adds between an upstream chunk and the browser's
// `token` event, beside a direct streaming request to the same paced agent in the same run; then many turns at
// once (server memory and event-loop delay). Needs `npm run build`.
//   node bench/chat.mjs [--runs 3] [--slow-tokens 500] [--fast-tokens 10000]
//
// Layout: the built server (dist/server/index.js startServer) in a child pinned to core 0, with
// perf_hooks.monitorEventLoopDelay running inside it and read over IPC; the paced agent and the client in this
// process on core 1, so the agent's write time and the client's arrival time come from one clock
// (process.hrtime). Latency of a token = its arrival at the client − its write by the agent, for both paths:
//   direct:  client → agent's /v1/chat/completions stream (the client parses the chunks itself)
//   Satchel: client → POST /api/chat/start, GET /api/chat/stream; Satchel → agent
// The agent writes the fake agent's own chunk bytes (contentChunk from server/testing/fake-agent.ts), each token
// its own write with Nagle off, carrying its sequence number as its text. It paces against the clock rather than
// with the fake agent's `tokensPerSecond` (a setTimeout per token, which Node clamps to ≥ 1 ms, so it cannot
// reach 2,000 tokens/s): under 2 ms to the next token it yields with setImmediate, so every token leaves on time.
import http from 'node:http';
import { setImmediate as immediate, setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { forkServer, machine, median, tempDir } from './lib.mjs';
import fs from 'node:fs/promises';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    'slow-tokens': { type: 'string', default: '500' },
    'fast-tokens': { type: 'string', default: '10000' },
  },
});
const RUNS = Number(values.runs);
const SLOW = { tps: 50, tokens: Number(values['slow-tokens']) };
const FAST = { tps: 2000, tokens: Number(values['fast-tokens']) };
/** The first tokens of a stream warm the JIT and the sockets; they are left out of the percentiles. */
const WARMUP_TOKENS = 10;
/** Backlog: at 2,000 tokens/s the last token must arrive within this of its write. */
const BACKLOG_LIMIT_MS = 50;
/** The product's bound (server/agent/turns.ts MAX_CONCURRENT_TURNS), checked against what the server does. */
const CONCURRENT_ATTEMPTS = 100;
const CONCURRENT_TOKENS = { tps: 50, tokens: 300 };
const CONCURRENT_FAST = { tps: 2000, tokens: 4000 };
const MEMORY_SAMPLE_MS = 200;
const ELD_RESOLUTION_MS = 10;
const SETTLE_MS = 1000;
const TOKEN = 'bench-token';
const MODEL = 'fake-model';

const { contentChunk, usageChunk } = await import(new URL('../dist/server/testing/fake-agent.js', import.meta.url).href);
const { MAX_CONCURRENT_TURNS } = await import(new URL('../dist/server/agent/turns.js', import.meta.url).href);
const { isTitleRequest } = await import(new URL('../dist/server/agent/title.js', import.meta.url).href);

const now = () => process.hrtime.bigint();
const ms = (ns) => Number(ns) / 1e6;
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((sorted.length * p) / 100) - 1)];

async function until(due) {
  for (;;) {
    const left = ms(due - now());
    if (left <= 0) return;
    if (left > 2) await sleep(left - 1);
    else await immediate();
  }
}

// ---- the paced agent (this process) -------------------------------------------------------------------------

/** tag → { gate: Promise, open(), written: bigint[] (index = token seq) } */
const turns = new Map();
function expectTurn(tag) {
  let open;
  const gate = new Promise((r) => (open = r));
  const turn = { gate, open, written: [] };
  turns.set(tag, turn);
  return turn;
}

const agent = http.createServer(async (req, res) => {
  const parts = [];
  for await (const part of req) parts.push(part);
  if (req.method !== 'POST' || !req.url.endsWith('/chat/completions')) {
    res.writeHead(404).end();
    return;
  }
  const body = JSON.parse(Buffer.concat(parts).toString());
  // Satchel asks for a session's title after its first turn (server/agent/title.ts): not a turn of the bench,
  // and it quotes the turn's tag, so it is refused (the derived title stays) before it could stream as one.
  if (isTitleRequest(body.messages)) {
    res.writeHead(503).end();
    return;
  }
  const last = body.messages.at(-1);
  const text = typeof last.content === 'string' ? last.content : last.content.map((p) => p.text ?? '').join('');
  const [, tag, tps, count] = /bench:(\S+) (\d+) (\d+)/.exec(text);
  const turn = turns.get(tag);
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.flushHeaders();
  res.socket.setNoDelay(true);
  res.write(`data: ${JSON.stringify({ ...contentChunk(''), choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] })}\n\n`);
  // Tokens start once the client watches the stream, so none is replayed from the log (that is not latency).
  await turn.gate;
  const gapNs = 1e9 / Number(tps);
  const t0 = now();
  for (let seq = 1; seq <= Number(count); seq++) {
    await until(t0 + BigInt(Math.round(seq * gapNs)));
    if (res.destroyed) return;
    turn.written[seq] = now();
    res.write(`data: ${JSON.stringify(contentChunk(` ${toWord(seq)}`))}\n\n`);
  }
  res.write(`data: ${JSON.stringify({ ...contentChunk(''), choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`);
  res.write(`data: ${JSON.stringify(usageChunk(10, Number(count)))}\n\n`);
  res.end('data: [DONE]\n\n');
});
await new Promise((r) => agent.listen(0, '127.0.0.1', r));
const agentUrl = `http://127.0.0.1:${agent.address().port}`;

// Each token is a prose-like word that spells its sequence number in letters (1 → a, 27 → aa): Satchel sends an
// ordinary word on at once, while a word that could begin a credential (digits, symbols, inner capitals) waits
// until it ends so the live stream can be redacted (server/redact/stream-redact.ts). Prose is what a reply is.
function toWord(seq) {
  let word = '';
  for (let n = seq; n > 0; n = Math.floor((n - 1) / 26)) word = String.fromCharCode(97 + ((n - 1) % 26)) + word;
  return word;
}
function fromWord(word) {
  let n = 0;
  for (const ch of word) n = n * 26 + (ch.charCodeAt(0) - 96);
  return n;
}
/** The sequence numbers of the words in a frame's text (normally one). */
const seqsIn = (text) => text.split(/\s+/).filter((w) => /^[a-z]+$/.test(w)).map(fromWord);

// ---- the client -----------------------------------------------------------------------------------------------

/**
 * Reads an SSE response; each token's arrival is the time of the socket read that completed its frame. `pick`
 * turns one frame (its `event` and `data` lines) into a token's seq, or undefined.
 */
function readStream(res, pick) {
  const arrived = [];
  let buf = '';
  return new Promise((resolve, reject) => {
    res.setEncoding('utf8');
    res.on('data', (chunk) => {
      const at = now();
      buf += chunk;
      let end;
      while ((end = buf.indexOf('\n\n')) !== -1) {
        const frame = buf.slice(0, end);
        buf = buf.slice(end + 2);
        let event = 'message';
        let data = '';
        for (const line of frame.split('\n')) {
          if (line.startsWith('event: ')) event = line.slice(7);
          else if (line.startsWith('data: ')) data = line.slice(6);
        }
        for (const seq of pick(event, data)) arrived[seq] = at;
      }
    });
    res.on('end', () => resolve(arrived));
    res.on('error', reject);
  });
}

const directPick = (_event, data) => {
  if (!data || data === '[DONE]') return [];
  return seqsIn(JSON.parse(data).choices?.[0]?.delta?.content ?? '');
};
const satchelPick = (event, data) => (event === 'token' ? seqsIn(JSON.parse(data).text) : []);

function request(port, method, path, body) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode, body: text ? JSON.parse(text) : undefined }));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

function openStream(port, path, method = 'GET', body) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, agent: false, headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json', Accept: 'text/event-stream' } }, resolve);
    req.on('socket', (s) => s.setNoDelay(true));
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

let tagSeq = 0;
const message = (tag, { tps, tokens }) => `bench:${tag} ${tps} ${tokens}`;

/** One direct streaming request to the agent: per-token latency in ms (warm-up left out). */
async function direct(pace) {
  const tag = `d${++tagSeq}`;
  const turn = expectTurn(tag);
  const res = await openStream(agent.address().port, '/v1/chat/completions', 'POST', { model: MODEL, stream: true, messages: [{ role: 'user', content: message(tag, pace) }] });
  turn.open();
  return latencies(turn, await readStream(res, directPick), pace.tokens);
}

/** One turn through Satchel (a fresh session): per-token latency in ms (warm-up left out). */
async function viaSatchel(port, pace, sessionId) {
  const tag = `s${++tagSeq}`;
  const turn = expectTurn(tag);
  const started = await request(port, 'POST', '/api/chat/start', { session_id: sessionId, message: message(tag, pace) });
  if (started.status !== 200) return { refused: started.status, error: started.body?.error };
  const res = await openStream(port, `/api/chat/stream?stream_id=${started.body.stream_id}`);
  if (res.statusCode !== 200) throw new Error(`chat stream: ${res.statusCode}`);
  turn.open();
  return latencies(turn, await readStream(res, satchelPick), pace.tokens);
}

function latencies(turn, arrived, count) {
  const lat = [];
  for (let seq = 1; seq <= count; seq++) {
    if (arrived[seq] === undefined || turn.written[seq] === undefined) throw new Error(`token ${seq} of ${count} missing`);
    if (seq > WARMUP_TOKENS) lat.push(ms(arrived[seq] - turn.written[seq]));
  }
  const span = ms(turn.written[count] - turn.written[1]) / 1000;
  return { lat, last: ms(arrived[count] - turn.written[count]), rate: (count - 1) / span };
}

// ---- the server (child on core 0) -----------------------------------------------------------------------------

const SERVER_CHILD = `
  import { monitorEventLoopDelay } from 'node:perf_hooks';
  import { readFileSync } from 'node:fs';
  // Time this process was runnable but waiting for a CPU (ns): other processes on its core, not its own work.
  const runWait = () => { try { return Number(readFileSync('/proc/self/schedstat', 'utf8').split(' ')[1]); } catch { return 0; } };
  const { startServer } = await import(process.env.BENCH_SERVER_MODULE);
  const s = await startServer({ host: '127.0.0.1', port: 0, stateDir: process.env.BENCH_STATE_DIR, token: '${TOKEN}' });
  const delay = monitorEventLoopDelay({ resolution: ${ELD_RESOLUTION_MS} });
  delay.enable();
  const q = (p) => delay.percentile(p) / 1e6;
  process.on('message', (m) => {
    if (m === 'exit') process.exit(0);
    if (m === 'reset') delay.reset();
    if (m === 'gc') globalThis.gc();
    const { rss, heapUsed } = process.memoryUsage();
    const cpu = process.cpuUsage();
    process.send({ m, rss, heapUsed, cpuMs: (cpu.user + cpu.system) / 1e3, waitMs: runWait() / 1e6, eld: { p50: q(50), p99: q(99), max: delay.max / 1e6 } });
  });
  process.send({ m: 'ready', port: s.port });
`;

async function startSatchel() {
  const stateDir = await tempDir('satchel-bench-chat-');
  const { ready, ask, stop: stopChild } = await forkServer(SERVER_CHILD, {
    stateDir,
    serverModule: new URL('../dist/server/index.js', import.meta.url).href,
    agentUrl,
    model: MODEL,
    // BENCH_SERVER_FLAGS='--cpu-prof --cpu-prof-dir=<dir>' profiles the server, for finding where time goes.
    execArgv: ['--expose-gc', ...(process.env.BENCH_SERVER_FLAGS?.split(' ').filter(Boolean) ?? [])],
  });
  const newSession = async () => (await request(ready.port, 'POST', '/api/session/new', {})).body.session.session_id;
  const stop = async () => {
    await stopChild();
    await fs.rm(stateDir, { recursive: true, force: true });
  };
  return { port: ready.port, ask, newSession, stop };
}

/** Runs `work` while sampling the server's memory; before (after gc), peak during, after (after gc). */
async function measured(server, work) {
  await server.ask('gc');
  await sleep(SETTLE_MS / 2);
  const before = await server.ask('gc');
  const started = await server.ask('reset');
  const t0 = now();
  let peak = { rss: before.rss, heapUsed: before.heapUsed };
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const s = await server.ask('sample');
      peak = { rss: Math.max(peak.rss, s.rss), heapUsed: Math.max(peak.heapUsed, s.heapUsed) };
      await sleep(MEMORY_SAMPLE_MS);
    }
  })();
  const result = await work();
  const during = await server.ask('sample');
  const wallMs = ms(now() - t0);
  sampling = false;
  await sampler;
  await sleep(SETTLE_MS);
  const after = await server.ask('gc');
  // The loop-delay histogram counts from the 10 ms sampling interval: what matters is the excess over it.
  const eld = Object.fromEntries(Object.entries(during.eld).map(([k, v]) => [k, Math.max(0, v - ELD_RESOLUTION_MS)]));
  return { result, before, peak, after, eld, cpuPct: ((during.cpuMs - started.cpuMs) / wallMs) * 100, waitMs: during.waitMs - started.waitMs };
}

// ---- the scenarios ------------------------------------------------------------------------------------------

const MiB = 2 ** 20;
const summary = (lat) => {
  const s = [...lat].sort((a, b) => a - b);
  return { p50: pct(s, 50), p99: pct(s, 99), max: s.at(-1) };
};

const server = await startSatchel();
const latencyRows = [];
const concurrentRows = [];
try {
  for (const pace of [SLOW, FAST]) {
    const runs = [];
    for (let i = 0; i < RUNS; i++) {
      const d = await direct(pace);
      const session = await server.newSession();
      const { result: s, eld, cpuPct, waitMs } = await measured(server, () => viaSatchel(server.port, pace, session));
      if (s.refused) throw new Error(`turn refused: ${s.refused} ${s.error}`);
      runs.push({ d: summary(d.lat), s: summary(s.lat), dLast: d.last, sLast: s.last, dRate: d.rate, sRate: s.rate, eld, cpuPct, waitMs });
      console.error(`  ${pace.tps} tok/s run ${i + 1}: direct p50 ${runs.at(-1).d.p50.toFixed(3)} p99 ${runs.at(-1).d.p99.toFixed(3)} | Satchel p50 ${runs.at(-1).s.p50.toFixed(3)} p99 ${runs.at(-1).s.p99.toFixed(3)} max ${runs.at(-1).s.max.toFixed(2)} last ${s.last.toFixed(2)} ms | server loop delay p99 ${eld.p99.toFixed(2)} max ${eld.max.toFixed(2)} ms, CPU ${cpuPct.toFixed(0)} %, waited for a CPU ${waitMs.toFixed(0)} ms`);
    }
    const m = (f) => median(runs.map(f));
    latencyRows.push({
      pace,
      d50: m((r) => r.d.p50), d99: m((r) => r.d.p99), s50: m((r) => r.s.p50), s99: m((r) => r.s.p99),
      add50: m((r) => r.s.p50 - r.d.p50), add99: m((r) => r.s.p99 - r.d.p99), sMax: m((r) => r.s.max),
      dLast: m((r) => r.dLast), sLast: m((r) => r.sLast), worstLast: Math.max(...runs.map((r) => r.sLast)),
      rate: m((r) => r.sRate), eld99: m((r) => r.eld.p99), eldMax: m((r) => r.eld.max), cpuPct: m((r) => r.cpuPct), waitMs: m((r) => r.waitMs),
    });
  }

  // Many turns at once. The server runs at most MAX_CONCURRENT_TURNS; 100 starts at once show what happens to
  // the rest (refused with 503, as docs/API.md says), then the bound itself is run at both paces.
  const scenarios = [
    { name: `${CONCURRENT_ATTEMPTS} starts at once, ${CONCURRENT_TOKENS.tps} tok/s × ${CONCURRENT_TOKENS.tokens}`, attempts: CONCURRENT_ATTEMPTS, pace: CONCURRENT_TOKENS },
    { name: `${MAX_CONCURRENT_TURNS} at once (the bound), ${CONCURRENT_FAST.tps} tok/s × ${CONCURRENT_FAST.tokens}`, attempts: MAX_CONCURRENT_TURNS, pace: CONCURRENT_FAST },
  ];
  for (const sc of scenarios) {
    const runs = [];
    for (let i = 0; i < RUNS; i++) {
      const sessions = [];
      for (let k = 0; k < sc.attempts; k++) sessions.push(await server.newSession());
      const t0 = now();
      const m = await measured(server, () => Promise.all(sessions.map((id) => viaSatchel(server.port, sc.pace, id))));
      const wall = ms(now() - t0) / 1000;
      const ok = m.result.filter((r) => !r.refused);
      const refused = m.result.filter((r) => r.refused);
      const lat = summary(ok.flatMap((r) => r.lat));
      runs.push({ ok: ok.length, refused: refused.length, codes: [...new Set(refused.map((r) => r.refused))].join(','), lat, worstLast: Math.max(...ok.map((r) => r.last)), wall, ...m });
      console.error(`  ${sc.name} run ${i + 1}: ${ok.length} streamed, ${refused.length} refused; p50 ${lat.p50.toFixed(2)} p99 ${lat.p99.toFixed(2)} ms; rss ${(m.before.rss / MiB).toFixed(1)}→${(m.peak.rss / MiB).toFixed(1)}→${(m.after.rss / MiB).toFixed(1)} MiB; loop delay p99 ${m.eld.p99.toFixed(2)} max ${m.eld.max.toFixed(2)} ms; CPU ${m.cpuPct.toFixed(0)} %, waited for a CPU ${m.waitMs.toFixed(0)} ms`);
    }
    const m = (f) => median(runs.map(f));
    concurrentRows.push({
      name: sc.name, ok: m((r) => r.ok), refused: m((r) => r.refused), codes: runs[0].codes,
      p50: m((r) => r.lat.p50), p99: m((r) => r.lat.p99), worstLast: m((r) => r.worstLast),
      rssBefore: m((r) => r.before.rss), rssPeak: m((r) => r.peak.rss), rssAfter: m((r) => r.after.rss),
      heapBefore: m((r) => r.before.heapUsed), heapPeak: m((r) => r.peak.heapUsed), heapAfter: m((r) => r.after.heapUsed),
      eld50: m((r) => r.eld.p50), eld99: m((r) => r.eld.p99), eldMax: m((r) => r.eld.max), cpuPct: m((r) => r.cpuPct), waitMs: m((r) => r.waitMs),
    });
  }
} finally {
  await server.stop();
  agent.close();
  agent.closeAllConnections?.();
}

const f = (x, d = 2) => x.toFixed(d);
const mib = (b) => (b / MiB).toFixed(1);
console.log(`# Chat streaming — ${machine()}; ${RUNS} runs, medians; server on core 0, agent + client on core 1; first ${WARMUP_TOKENS} tokens of each stream left out`);
console.log('');
console.log(`Loop delay: monitorEventLoopDelay inside the server, minus its ${ELD_RESOLUTION_MS} ms sampling interval. "Waited for a CPU": /proc/<server>/schedstat run-queue time during the run.`);
console.log('');
console.log('Latency from the agent\'s write of a token to its arrival at the client (ms):');
console.log('');
console.log('| pace | tokens | direct p50 | direct p99 | via Satchel p50 | via Satchel p99 | added p50 | added p99 | Satchel max | last token: direct / Satchel (worst run) | server loop delay p99 / max | server CPU | server waited for a CPU |');
console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
for (const r of latencyRows) {
  console.log(
    `| ${r.pace.tps} tok/s (${f(r.rate, 0)} achieved) | ${r.pace.tokens} | ${f(r.d50, 3)} | ${f(r.d99, 3)} | ${f(r.s50, 3)} | ${f(r.s99, 3)} | **${f(r.add50, 3)}** | **${f(r.add99, 3)}** | ${f(r.sMax)} | ${f(r.dLast, 3)} / ${f(r.sLast, 3)} (${f(r.worstLast)}) | ${f(r.eld99)} / ${f(r.eldMax)} | ${f(r.cpuPct, 0)} % | ${f(r.waitMs, 0)} ms |`,
  );
}
const fast = latencyRows.find((r) => r.pace === FAST);
console.log('');
console.log(`Backlog at ${FAST.tps} tok/s: last token ${f(fast.worstLast)} ms after its write in the worst run (limit ${BACKLOG_LIMIT_MS} ms): ${fast.worstLast <= BACKLOG_LIMIT_MS ? 'none' : 'BACKLOG'}.`);
console.log('');
console.log(`Many turns at once (MAX_CONCURRENT_TURNS = ${MAX_CONCURRENT_TURNS}); server memory before (after gc) → peak during → after (after gc):`);
console.log('');
console.log('| scenario | streamed | refused | token latency p50 / p99 | last token (worst stream) | RSS MiB | heapUsed MiB | loop delay p50 / p99 / max | server CPU | server waited for a CPU |');
console.log('|---|---|---|---|---|---|---|---|---|---|');
for (const r of concurrentRows) {
  console.log(
    `| ${r.name} | ${r.ok} | ${r.refused}${r.codes ? ` (${r.codes})` : ''} | ${f(r.p50)} / ${f(r.p99)} ms | ${f(r.worstLast)} ms | ${mib(r.rssBefore)} → ${mib(r.rssPeak)} → ${mib(r.rssAfter)} | ${mib(r.heapBefore)} → ${mib(r.heapPeak)} → ${mib(r.heapAfter)} | ${f(r.eld50)} / ${f(r.eld99)} / ${f(r.eldMax)} ms | ${f(r.cpuPct, 0)} % | ${f(r.waitMs, 0)} ms |`,
  );
}
