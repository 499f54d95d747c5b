// Concurrency, side by side in one run: 32 concurrent 1 MiB uploads to one session against the floor (a bare
// Node server streaming each body to a file), and GET /api/transcribe/capability with the token on 16 keep-alive
// connections (wrk) against bare node:http answering the same bytes. Servers on core 0, the load on core 1; runs
// alternate (which side goes first alternates too), ratios are per pair, medians over the pairs.
//   npm run build && node bench/concurrency.mjs [--pairs 7] [--seconds 5] [--dist <other build's dist/>] [--cases uploads,capability]
//   [--node-args="<node's (V8's) flags for Satchel's process>"]
import { execFileSync } from 'node:child_process';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { hasCommand, machine, median, startChild, tempDir } from './lib.mjs';
import { cpuMs, MIB, percentile, startFloor, startSatchel, TOKEN, upload } from './upload-lib.mjs';

const { values } = parseArgs({
  options: {
    pairs: { type: 'string', default: '7' },
    seconds: { type: 'string', default: '5' },
    concurrency: { type: 'string', default: '32' },
    connections: { type: 'string', default: '16' },
    dist: { type: 'string' },
    cases: { type: 'string', default: 'uploads,capability' },
    'node-args': { type: 'string', default: '' },
  },
});
const pairs = Number(values.pairs);
const seconds = Number(values.seconds);
const concurrency = Number(values.concurrency);
const connections = Number(values.connections);
const cases = new Set(values.cases.split(','));
const nodeArgs = values['node-args'].split(' ').filter(Boolean);

const work = await tempDir('satchel-bench-conc-');
const fmt = (x, d = 0) => x.toFixed(d);

/** One round: `concurrency` uploads of 1 MiB started at once, each on its own connection. */
async function uploadRound(server, kind, round) {
  const cpu0 = await cpuMs(server.child.pid);
  const started = process.hrtime.bigint();
  const results = await Promise.all(
    Array.from({ length: concurrency }, (_, i) =>
      upload(server.info.port, {
        pathname: kind === 'satchel' ? '/api/upload' : '/upload',
        sessionId: server.info.id,
        filename: `payload-${round}-${i}.bin`,
        size: MIB,
      }),
    ),
  );
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  const cpu = (await cpuMs(server.child.pid)) - cpu0;
  if (kind === 'satchel') for (const r of results) if (r.body.size !== MIB) throw new Error(`stored ${r.body.size} bytes`);
  const lat = results.map((r) => r.ms).sort((a, b) => a - b);
  return { rps: concurrency / (wallMs / 1000), p50: percentile(lat, 0.5), p99: percentile(lat, 0.99), cpuPerReq: cpu / concurrency };
}

/** wrk on core 1; requests/s, latency percentiles (ms) and the server's CPU per request (µs). */
async function wrkRun(server, url, headers) {
  const args = ['-t1', `-c${connections}`, `-d${seconds}s`, '--latency'];
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}: ${v}`);
  args.push(url);
  const cmd = hasCommand('taskset') ? ['taskset', ['-c', '1', 'wrk', ...args]] : ['wrk', args];
  const cpu0 = await cpuMs(server.child.pid);
  const out = execFileSync(cmd[0], cmd[1], { encoding: 'utf8' });
  const cpu = (await cpuMs(server.child.pid)) - cpu0;
  const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(out);
  if (non2xx) throw new Error(`wrk saw ${non2xx[1]} error responses from ${url}`);
  const requests = Number(/(\d+) requests in/.exec(out)[1]);
  const toMs = (m) => Number(m[1]) * { us: 0.001, ms: 1, s: 1000 }[m[2]];
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)[1]),
    p50: toMs(/\s50%\s+([\d.]+)(us|ms|s)/.exec(out)),
    p99: toMs(/\s99%\s+([\d.]+)(us|ms|s)/.exec(out)),
    cpuPerReqUs: (cpu * 1000) / requests,
  };
}

/** Alternate `run(kind, i)` for Satchel and the floor, `pairs` times after one warm-up each; per-pair ratios. */
async function alternate(run) {
  await run('satchel', -1);
  await run('floor', -1);
  const out = { satchel: [], floor: [], ratio: [] };
  for (let i = 0; i < pairs; i++) {
    const order = i % 2 === 0 ? ['satchel', 'floor'] : ['floor', 'satchel'];
    const got = {};
    for (const kind of order) got[kind] = await run(kind, i);
    out.satchel.push(got.satchel);
    out.floor.push(got.floor);
    out.ratio.push(got.satchel.rps / got.floor.rps);
  }
  const med = (xs, key) => median(xs.map((x) => x[key]));
  const summary = (xs) => Object.fromEntries(Object.keys(xs[0]).map((k) => [k, med(xs, k)]));
  return { satchel: summary(out.satchel), floor: summary(out.floor), ratio: median(out.ratio), ratios: out.ratio };
}

const report = [];
try {
  if (cases.has('uploads')) {
    const satchel = await startSatchel(values.dist, await fsp.mkdtemp(path.join(work, 'satchel-')), { nodeArgs });
    const floorDir = await fsp.mkdtemp(path.join(work, 'floor-'));
    const floor = await startFloor(floorDir);
    try {
      let round = 0;
      const r = await alternate(async (kind) => uploadRound(kind === 'satchel' ? satchel : floor, kind, round++));
      report.push(
        `| ${concurrency} concurrent 1 MiB uploads to one session | ${fmt(r.satchel.rps, 1)} req/s, p50 ${fmt(r.satchel.p50)} / p99 ${fmt(r.satchel.p99)} ms, ` +
          `CPU ${fmt(r.satchel.cpuPerReq, 2)} ms/req | ${fmt(r.floor.rps, 1)} req/s, p50 ${fmt(r.floor.p50)} / p99 ${fmt(r.floor.p99)} ms, CPU ${fmt(r.floor.cpuPerReq, 2)} ms/req ` +
          `| **${fmt(r.ratio, 2)}** (pairs: ${r.ratios.map((x) => fmt(x, 2)).join(', ')}) |`,
      );
    } finally {
      satchel.child.kill();
      floor.child.kill();
    }
  }
  if (cases.has('capability')) {
    const satchel = await startSatchel(values.dist, await fsp.mkdtemp(path.join(work, 'satchel-')), { nodeArgs });
    const url = `http://127.0.0.1:${satchel.info.port}/api/transcribe/capability`;
    const answer = await (await fetch(url, { headers: { Authorization: `Bearer ${TOKEN}` } })).text();
    // The reference: node:http answering the very bytes Satchel answered, with a JSON content type.
    const bare = await startChild(`
      import http from 'node:http';
      const body = Buffer.from(${JSON.stringify(answer)});
      http.createServer((req, res) => { res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': body.length }); res.end(body); })
        .listen(0, '127.0.0.1', function () { console.log(JSON.stringify({ port: this.address().port })); });
    `);
    try {
      const r = await alternate((kind) =>
        kind === 'satchel' ? wrkRun(satchel, url, { Authorization: `Bearer ${TOKEN}` }) : wrkRun(bare, `http://127.0.0.1:${bare.info.port}/`, {}),
      );
      report.push(
        `| GET /api/transcribe/capability with the token, ${connections} keep-alive connections | **${fmt(r.satchel.rps)} req/s**, p50 ${fmt(r.satchel.p50, 2)} / p99 ${fmt(r.satchel.p99, 2)} ms, ` +
          `CPU ${fmt(r.satchel.cpuPerReqUs)} µs/req | ${fmt(r.floor.rps)} req/s, p50 ${fmt(r.floor.p50, 2)} / p99 ${fmt(r.floor.p99, 2)} ms, CPU ${fmt(r.floor.cpuPerReqUs)} µs/req ` +
          `| ${fmt(r.ratio, 2)} (pairs: ${r.ratios.map((x) => fmt(x, 2)).join(', ')}) |`,
      );
    } finally {
      satchel.child.kill();
      bare.child.kill();
    }
  }
} finally {
  await fsp.rm(work, { recursive: true, force: true });
}
console.log(`# Concurrency — ${machine()}; ${pairs} alternating pairs after a warm-up, medians; servers on core 0, load on core 1`);
console.log(`| work | Satchel | reference | ratio (median of pairs) |`);
console.log('|---|---|---|---|');
for (const line of report) console.log(line);
