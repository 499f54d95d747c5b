// Concurrency, side by side in one run: 32 concurrent 1 MiB uploads to one session against the busboy floor (bare
// node:http + busboy + a write stream: bench/upload-busboy-floor.mjs) and the floor (a bare Node server streaming
// each body to a file), and GET /api/transcribe/capability with the token on 16 keep-alive
// connections (wrk) against bare node:http answering the same bytes. Servers on core 0, the load on core 1; runs
// alternate (which side goes first alternates too), ratios are per pair, medians over the pairs.
//   npm run build && node bench/concurrency.mjs [--pairs 7] [--seconds 5] [--dist <other build's dist/>] [--cases uploads,capability]
//   [--node-args="<node's (V8's) flags for Satchel's process>"]
import { execFileSync } from 'node:child_process';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { hasCommand, machine, median, startChild, tempDir } from './lib.mjs';
import { BUSBOY_FLOOR_SCRIPT, cpuMs, MIB, percentile, startFloor, startSatchel, TOKEN, upload, uploadPath } from './upload-lib.mjs';

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
        pathname: uploadPath(kind),
        sessionId: server.info.id,
        filename: `payload-${round}-${i}.bin`,
        size: MIB,
      }),
    ),
  );
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  const cpu = (await cpuMs(server.child.pid)) - cpu0;
  if (kind !== 'floor') for (const r of results) if (r.body.size !== MIB) throw new Error(`stored ${r.body.size} bytes`);
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

/**
 * Rotate `run(kind, i)` over `kinds` (the reference last), `pairs` rounds after one warm-up each, each side first in
 * turn; per-round ratios of every side to the reference (`ratios[kind]`), and for three sides Satchel's to the middle
 * one (the busboy floor: what Satchel adds over the parser).
 */
async function alternate(run, kinds = ['satchel', 'floor']) {
  for (const kind of kinds) await run(kind, -1);
  const out = Object.fromEntries(kinds.map((k) => [k, []]));
  const ratios = Object.fromEntries(kinds.map((k) => [k, []]));
  const ref = kinds.at(-1);
  for (let i = 0; i < pairs; i++) {
    const order = kinds.map((_, k) => kinds[(i + k) % kinds.length]);
    const got = {};
    for (const kind of order) got[kind] = await run(kind, i);
    for (const kind of kinds) {
      out[kind].push(got[kind]);
      ratios[kind].push(got[kind].rps / got[ref].rps);
    }
    if (kinds.length === 3) (ratios.overMiddle ??= []).push(got[kinds[0]].rps / got[kinds[1]].rps);
  }
  const med = (xs, key) => median(xs.map((x) => x[key]));
  const summary = (xs) => Object.fromEntries(Object.keys(xs[0]).map((k) => [k, med(xs, k)]));
  const r = Object.fromEntries(kinds.map((k) => [k, summary(out[k])]));
  return { ...r, floor: r[ref], ratio: median(ratios[kinds[0]]), ratios: ratios[kinds[0]], ratiosOf: ratios, medianOf: (k) => median(ratios[k]) };
}

const report = [];
const uploadReport = [];
try {
  if (cases.has('uploads')) {
    const satchel = await startSatchel(values.dist, await fsp.mkdtemp(path.join(work, 'satchel-')), { nodeArgs });
    const busboyFloor = await startFloor(await fsp.mkdtemp(path.join(work, 'busboy-')), { script: BUSBOY_FLOOR_SCRIPT });
    const floor = await startFloor(await fsp.mkdtemp(path.join(work, 'floor-')));
    const servers = { satchel, busboy: busboyFloor, floor };
    try {
      let round = 0;
      const r = await alternate(async (kind) => uploadRound(servers[kind], kind, round++), ['satchel', 'busboy', 'floor']);
      const side = (x) => `${fmt(x.rps, 1)} req/s, p50 ${fmt(x.p50)} / p99 ${fmt(x.p99)} ms, CPU ${fmt(x.cpuPerReq, 2)} ms/req`;
      const list = (xs) => xs.map((x) => fmt(x, 2)).join(', ');
      uploadReport.push(
        `| ${concurrency} concurrent 1 MiB uploads to one session | ${side(r.satchel)} | ${side(r.busboy)} | ${side(r.floor)} ` +
          `| **${fmt(r.satchel.cpuPerReq / r.floor.cpuPerReq, 2)}** / ${fmt(r.busboy.cpuPerReq / r.floor.cpuPerReq, 2)} / ${fmt(r.satchel.cpuPerReq / r.busboy.cpuPerReq, 2)} ` +
          `| **${fmt(r.ratio, 2)}** (${list(r.ratios)}) / ${fmt(r.medianOf('busboy'), 2)} (${list(r.ratiosOf.busboy)}) / ${fmt(median(r.ratiosOf.overMiddle), 2)} (${list(r.ratiosOf.overMiddle)}) |`,
      );
    } finally {
      for (const s of Object.values(servers)) s.child.kill();
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
console.log(`# Concurrency — ${machine()}; ${pairs} rounds after a warm-up (sides rotating), medians; servers on core 0, load on core 1`);
if (uploadReport.length) {
  console.log('| work | Satchel | busboy floor | floor | CPU per upload Satchel ÷ floor / busboy ÷ floor / Satchel ÷ busboy | req/s Satchel ÷ floor (rounds) / busboy ÷ floor / Satchel ÷ busboy |');
  console.log('|---|---|---|---|---|---|');
  for (const line of uploadReport) console.log(line);
}
if (report.length) {
  console.log(`| work | Satchel | reference | ratio (median of pairs) |`);
  console.log('|---|---|---|---|');
  for (const line of report) console.log(line);
}
