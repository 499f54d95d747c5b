// Server CPU per request (utime+stime from /proc) and requests per second with keep-alive: Satchel's server beside
// a bare Node `http` server answering the same body, both pinned to core 0, the client (this process, Node's own
// http agent, 16 connections) on core 1, in one run. Runs alternate; medians, the ratio per pair of runs, its
// median over the pairs. CPU per request first: the machine is shared and load disturbs it far less than req/s.
// The bare server answers twice: with the same body and only the two headers it needs (the floor the target is
// against), and with the same body and the same headers Satchel sends (what the policy headers themselves cost).
//   npm run build && node bench/http.mjs [--runs 5] [--requests 20000] [--dist <another build's dist/>]
import http from 'node:http';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { hasCommand, machine, median, startChild, tempDir } from './lib.mjs';
import { cpuMs } from './upload-lib.mjs';

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '5' }, requests: { type: 'string', default: '20000' }, dist: { type: 'string' } },
});
const runs = Number(values.runs);
const requests = Number(values.requests);
const TOKEN = 'bench-token';
/** Connections the client keeps open at once (wrk's -c16 of the earlier version of this bench). */
const CONNECTIONS = 16;
/** Requests sent before each measured batch, so both servers are warm (JIT, pooled sockets). */
const WARMUP = 2000;
const entry = values.dist ? `file://${path.resolve(values.dist, 'server/index.js')}` : new URL('../dist/server/index.js', import.meta.url).href;

// The client on core 1, the servers on core 0.
if (hasCommand('taskset')) execFileSync('taskset', ['-cp', '1', String(process.pid)], { stdio: 'ignore' });

const satchelScript = (stateDir) => `
  import { startServer } from ${JSON.stringify(entry)};
  const s = await startServer({ host: '127.0.0.1', port: 0, stateDir: ${JSON.stringify(stateDir)}, token: '${TOKEN}' });
  console.log(JSON.stringify({ port: s.port }));
`;

// The floor: plain Node answering the same bytes. `headers` are Satchel's own, captured from its answer.
const bareScript = (body, headers) => `
  import http from 'node:http';
  const body = Buffer.from(${JSON.stringify(body)});
  const same = { ...${JSON.stringify(headers)}, 'Content-Length': body.length };
  const s = http.createServer((req, res) => {
    if (req.url === '/same') res.writeHead(200, same);
    else res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length });
    res.end(body);
  });
  s.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: s.address().port })));
`;

/** GET `path` once; resolves with the status, the headers and the body text. */
function get(port, pathname, headers = {}) {
  return new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path: pathname, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, text }));
    }).on('error', reject);
  });
}

/** `n` GETs over CONNECTIONS keep-alive connections; resolves with the wall time in ms. Non-200 rejects. */
function hammer(port, pathname, n, headers) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    let sent = 0;
    let done = 0;
    const one = () => {
      if (sent >= n) return;
      sent++;
      http.get({ host: '127.0.0.1', port, path: pathname, agent, headers }, (res) => {
        if (res.statusCode !== 200) return reject(new Error(`${pathname}: ${res.statusCode}`));
        res.resume();
        res.on('end', () => {
          if (++done === n) resolve(Number(process.hrtime.bigint() - started) / 1e6);
          else one();
        });
      }).on('error', reject);
    };
    for (let i = 0; i < CONNECTIONS; i++) one();
  }).finally(() => agent.destroy());
}

/** Server CPU µs per request and requests per second over `requests` requests, after a warm-up. */
async function measure(server, pathname, headers) {
  await hammer(server.info.port, pathname, WARMUP, headers);
  const cpu0 = await cpuMs(server.child.pid);
  const ms = await hammer(server.info.port, pathname, requests, headers);
  const cpu = (await cpuMs(server.child.pid)) - cpu0;
  return { cpuUs: (cpu * 1000) / requests, rps: requests / (ms / 1000) };
}

const stateDir = await tempDir('satchel-bench-http-');
const satchel = await startChild(satchelScript(stateDir), { core: 0, env: { SATCHEL_WEBUI_ATTACHMENT_DIR: '' } });
const auth = { Authorization: `Bearer ${TOKEN}` };
const PATH = '/api/transcribe/capability';
const sample = await get(satchel.info.port, PATH, auth);
if (sample.status !== 200) throw new Error(`${PATH}: ${sample.status}`);
const { date, connection, 'keep-alive': keepAlive, 'content-length': length, ...sameHeaders } = sample.headers;
const bare = await startChild(bareScript(sample.text, sameHeaders), { core: 0 });
const got = { satchel: [], bare: [], same: [], ratio: [], sameRatio: [] };
try {
  for (let i = 0; i < runs; i++) {
    // Which side goes first alternates, so a change of load between the halves of a pair falls on both.
    const order = i % 2 === 0 ? ['satchel', 'bare', 'same'] : ['same', 'bare', 'satchel'];
    const pair = {};
    for (const kind of order) {
      pair[kind] = kind === 'satchel' ? await measure(satchel, PATH, auth) : await measure(bare, kind === 'same' ? '/same' : '/small', auth);
    }
    got.satchel.push(pair.satchel);
    got.bare.push(pair.bare);
    got.same.push(pair.same);
    got.ratio.push(pair.satchel.cpuUs / pair.bare.cpuUs);
    got.sameRatio.push(pair.satchel.cpuUs / pair.same.cpuUs);
  }
} finally {
  satchel.child.kill();
  bare.child.kill();
}
const med = (xs, key) => median(xs.map((x) => x[key]));
console.log(`# Small authenticated GET — ${machine()}; ${runs} runs of ${requests} requests, ${CONNECTIONS} keep-alive connections, medians; servers on core 0, client on core 1`);
console.log(`\`GET ${PATH}\` (${Buffer.byteLength(sample.text)} B body, ${Object.keys(sameHeaders).length} headers of Satchel's own)`);
console.log('');
console.log('| server | CPU µs per request | req/s | Satchel\'s CPU ÷ this (median of pairs) |');
console.log('|---|---|---|---|');
console.log(`| Satchel | **${med(got.satchel, 'cpuUs').toFixed(1)}** | ${med(got.satchel, 'rps').toFixed(0)} | |`);
console.log(`| bare node:http, same body | ${med(got.bare, 'cpuUs').toFixed(1)} | ${med(got.bare, 'rps').toFixed(0)} | **${median(got.ratio).toFixed(2)}** (${got.ratio.map((x) => x.toFixed(2)).join(', ')}) |`);
console.log(`| bare node:http, same body and headers | ${med(got.same, 'cpuUs').toFixed(1)} | ${med(got.same, 'rps').toFixed(0)} | ${median(got.sameRatio).toFixed(2)} (${got.sameRatio.map((x) => x.toFixed(2)).join(', ')}) |`);
