// A hostile agent's flood: what one reply of hundreds of MB costs the server, during the
// turn and for good. Needs `npm run build`.
//   node bench/hostile.mjs [--runs 3] [--mib 400] [--server-dist <dir>]
//
// Per run: the built server (startServer from <server-dist>/server/index.js, default this checkout's dist/) in
// a child pinned to core 0, with SATCHEL_AGENT_BASE_URL pointing at a flooding agent in this process (the
// hostile agent's flood(), server/testing/hostile-agent.ts, from this checkout's dist/). One turn is started
// and followed through GET /api/chat/stream/status until it is no longer active (no watcher: the measure is
// the server's own cost); then, with a fresh server on the same state folder (a restart):
//   turn s        start → the turn is over (stored)
//   peak MiB      the server's peak RSS (VmHWM) during the turn
//   after MiB     its RSS 1 s after the turn, after a gc
//   file MiB      the session file on disk
//   restart s     spawn of the fresh server → its first /health answer (it loads every session at start)
//   idle MiB      the fresh server's RSS once it answers
//   session ms    GET /api/session of that session on the fresh server
// `--server-dist` names another build to measure (a checkout of main built with `npm run build`): the agent
// side stays this checkout's.
import fs from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { forkServer, machine, median, tempDir } from './lib.mjs';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    mib: { type: 'string', default: '400' },
    'server-dist': { type: 'string' },
  },
});
const RUNS = Number(values.runs);
const MIB = Number(values.mib);
const SERVER_DIST = values['server-dist'] ? path.resolve(values['server-dist']) : new URL('../dist', import.meta.url).pathname;
const TOKEN = 'bench-token';
/** A turn not over by then is reported as such (the bound being measured is far below it). */
const TURN_LIMIT_MS = 10 * 60_000;
const POLL_MS = 100;
const SETTLE_MS = 1_000;

const { startFakeAgent } = await import(new URL('../dist/server/testing/fake-agent.js', import.meta.url).href);
const { flood } = await import(new URL('../dist/server/testing/hostile-agent.js', import.meta.url).href);

function request(port, method, pathname, body) {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path: pathname,
        headers: { authorization: `Bearer ${TOKEN}`, ...(data ? { 'content-type': 'application/json', 'content-length': data.length } : {}) },
      },
      (res) => {
        const parts = [];
        res.on('data', (p) => parts.push(p));
        res.on('end', () => {
          const text = Buffer.concat(parts).toString('utf8');
          let json;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode, body: json, bytes: text.length });
        });
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

const SERVER_CHILD = `
  const { startServer } = await import(process.env.BENCH_SERVER_MODULE);
  const s = await startServer({ host: '127.0.0.1', port: 0, stateDir: process.env.BENCH_STATE_DIR, token: '${TOKEN}' });
  process.on('message', (m) => {
    if (m === 'exit') process.exit(0);
    if (m === 'gc') globalThis.gc();
    process.send({ m, rss: process.memoryUsage().rss });
  });
  process.send({ m: 'ready', port: s.port });
`;

async function startSatchel(stateDir, agentUrl) {
  const t0 = performance.now();
  const { child, ready, ask, stop } = await forkServer(SERVER_CHILD, {
    stateDir,
    serverModule: pathToFileURL(path.join(SERVER_DIST, 'server/index.js')).href,
    agentUrl,
    execArgv: ['--expose-gc'],
  });
  // Ready is sent once start-up (every session loaded) is done; the first /health answer follows.
  for (;;) {
    const res = await request(ready.port, 'GET', '/health').catch(() => undefined);
    if (res?.status === 200) break;
    await sleep(10);
  }
  const startMs = performance.now() - t0;
  return { port: ready.port, pid: child.pid, ask, stop, startMs };
}

const status = async (pid) => fs.readFile(`/proc/${pid}/status`, 'utf8');
const kib = (text, field) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(text)[1]);

async function run(agent) {
  const stateDir = await tempDir('satchel-bench-hostile-');
  try {
    const server = await startSatchel(stateDir, agent.baseUrl);
    const { session_id: id } = (await request(server.port, 'POST', '/api/session/new', {})).body.session;
    agent.next(flood({ mib: MIB }));
    const t0 = performance.now();
    const started = await request(server.port, 'POST', '/api/chat/start', { session_id: id, message: 'flood me' });
    if (started.status !== 200) throw new Error(`chat/start ${started.status}`);
    let over = false;
    while (performance.now() - t0 < TURN_LIMIT_MS) {
      const st = await request(server.port, 'GET', `/api/chat/stream/status?stream_id=${started.body.stream_id}`);
      if (st.status === 200 && !st.body.active) {
        over = true;
        break;
      }
      await sleep(POLL_MS);
    }
    const turnS = (performance.now() - t0) / 1000;
    const peak = kib(await status(server.pid), 'VmHWM') / 1024;
    await server.ask('gc');
    await sleep(SETTLE_MS);
    const after = (await server.ask('gc')).rss / 2 ** 20;
    await server.stop();
    // The session as stored, as JSON text: what its file weighed before sessions moved into the database.
    const { storedSessionText } = await import(pathToFileURL(path.join(SERVER_DIST, 'server/testing/stored-session.js')).href);
    const file = Buffer.byteLength(await storedSessionText(stateDir, id)) / 2 ** 20;

    const again = await startSatchel(stateDir, agent.baseUrl);
    const idle = kib(await status(again.pid), 'VmRSS') / 1024;
    const s0 = performance.now();
    const got = await request(again.port, 'GET', `/api/session?session_id=${id}`);
    const sessionMs = performance.now() - s0;
    await again.stop();
    return { over, turnS, peak, after, file, restartS: again.startMs / 1000, idle, sessionMs, sessionStatus: got.status };
  } finally {
    await fs.rm(stateDir, { recursive: true, force: true });
  }
}

const agent = await startFakeAgent();
const results = [];
try {
  for (let i = 0; i < RUNS; i++) {
    const r = await run(agent);
    results.push(r);
    console.error(`run ${i + 1}: ${JSON.stringify(r)}`);
  }
} finally {
  await agent.close();
}
const med = (key, digits = 1) => median(results.map((r) => r[key])).toFixed(digits);
console.log(`Hostile agent: one reply of a ${MIB} MiB flood; server ${SERVER_DIST}; ${machine()}; median of ${RUNS}`);
console.log('| turn s | peak MiB | after MiB | file MiB | restart s | idle MiB | GET /api/session ms |');
console.log('|---|---|---|---|---|---|---|');
console.log(`| ${med('turnS')} | ${med('peak', 0)} | ${med('after', 0)} | ${med('file')} | ${med('restartS', 2)} | ${med('idle', 0)} | ${med('sessionMs', 0)} |`);
if (results.some((r) => !r.over)) console.log(`(a turn was still running after ${TURN_LIMIT_MS / 1000} s)`);
if (results.some((r) => r.sessionStatus !== 200)) console.log(`(GET /api/session answered ${results.map((r) => r.sessionStatus).join(', ')})`);
