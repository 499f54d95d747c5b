// Export all (GET /api/sessions/export) over a realistic history, beside its floor in the same run (issue 37,
// finding 2): the server's peak RSS over its idle RSS, time to the first byte of the archive, total time and the
// server's CPU (utime+stime from /proc/<pid>/stat), and a paused client (reads 1 MiB, then stops for PAUSE_MS:
// how much the server grows and works meanwhile). The floor is a bare node:http server streaming a plain zip of
// the same rows with the same zip library (yazl) and the same SQLite binding: one conversation's rows read, its
// member written, then the next (the least any streaming export can hold).
//
// The history is built through Satchel's own import (POST /api/session/import of one conversation's export at a
// time), seeded: conversations of 10,000, 1,000 and 10 messages, README English with code blocks from the Markdown
// files in node_modules, a text attachment in every 25th conversation. Kept in /tmp between runs (the folder
// names the size). Build first: npx tsc -p tsconfig.json.
//
//   node bench/export-stream.mjs --messages 20000 --runs 3
//   node bench/export-stream.mjs --messages 200000 --runs 3
// (`--dist <folder>` measures another build of the server, e.g. one of the code before a change;
// `--state-dir <folder>` a copy of a history built before, never the original in place; `--satchel-only` one
// Satchel export alone, with `--breakdown` (RssAnon/RssFile and V8's heap, sampled), `--alloc-prof <file>` (V8's
// sampling heap profile of the export, collected objects counted), `--node-args "<flags>"` (e.g. --trace-gc) and
// `--keep-archive <file>` (for bench/export-compare.mjs).)
import { execFileSync, fork } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';
import { arg, flag, median } from './lib.mjs';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const require = createRequire(import.meta.url);
const yazl = require('yazl');

const MESSAGES = Number(arg('--messages', '20000'));
const RUNS = Number(arg('--runs', '3'));
const TOKEN = 'bench-token-export-stream-0123456789';
const PAUSE_AFTER_BYTES = 1 << 20;
const PAUSE_MS = 5_000;
const SAMPLE_MS = 10;
/** How often --breakdown asks the server for its heap (an IPC round trip: not every SAMPLE_MS). */
const BREAKDOWN_MS = 100;
const TICK_MS = 1000 / Number(execFileSync('getconf', ['CLK_TCK']).toString().trim());
const MiB = 1024 * 1024;
/** The history's folder (`--state-dir`: a copy of one built before, never the original in place). */
const stateDir = path.resolve(arg('--state-dir', path.join(os.tmpdir(), `i37-export-bench-${MESSAGES}`)));
/** The build to measure (another build, e.g. of the code before a change, with `--dist dist-before`). */
const DIST = path.resolve(root, arg('--dist', 'dist'));
/** Node flags for Satchel's server (`--node-args "--trace-gc"`, to see where its memory goes); none by default. */
const NODE_ARGS = arg('--node-args', '').split(' ').filter(Boolean);

// ---- the history ----------------------------------------------------------------------------------------------
let seed = 0x37e5;
const rand = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;

/** README English with its code blocks: every README.md directly in node_modules/<pkg>/, in name order. */
function corpus() {
  const dir = path.join(root, 'node_modules');
  const texts = [];
  for (const name of readdirSync(dir).sort()) {
    const file = path.join(dir, name, 'README.md');
    if (existsSync(file)) texts.push(readFileSync(file, 'utf8'));
  }
  return texts.join('\n\n').replace(/\r/g, '');
}

const CORPUS = corpus();
/** A slice of the corpus of `chars` characters starting at a paragraph. */
function prose(chars) {
  let at = Math.floor(rand() * (CORPUS.length - chars - 1));
  const para = CORPUS.indexOf('\n\n', at);
  if (para !== -1 && para + chars < CORPUS.length) at = para + 2;
  return CORPUS.slice(at, at + chars);
}

/** Conversation lengths: the yardstick (10,000, 1,000 and 10 messages), scaled to the total. */
function lengths(total) {
  const big = Math.max(1, Math.round(total / 20_000));
  const out = [];
  for (let i = 0; i < big; i++) out.push(10_000);
  for (let i = 0; i < 9 * big; i++) out.push(1_000);
  for (let i = 0; i < 100 * big; i++) out.push(10);
  return out;
}

function conversation(n, index, t0) {
  const messages = [];
  for (let i = 0; i < n; i++) {
    const user = i % 2 === 0;
    messages.push({ role: user ? 'user' : 'assistant', content: prose(user ? 40 + Math.floor(rand() * 560) : 200 + Math.floor(rand() * 2800)), timestamp: t0 + i * 30 });
  }
  const iso = new Date(t0 * 1000).toISOString();
  return { satchel_export: 1, title: `${prose(40).replace(/\s+/g, ' ').trim()} (${index})`, created_at: iso, updated_at: new Date((t0 + n * 30) * 1000).toISOString(), messages, attachments: [] };
}

function zipOf(files) {
  return new Promise((resolve, reject) => {
    const zip = new yazl.ZipFile();
    for (const [name, text] of Object.entries(files)) zip.addBuffer(Buffer.from(text), name);
    zip.end();
    const chunks = [];
    zip.outputStream.on('data', (c) => chunks.push(c)).on('end', () => resolve(Buffer.concat(chunks))).on('error', reject);
  });
}

function multipart(filename, content) {
  const boundary = 'benchBoundary37export';
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`);
  return { boundary, body: Buffer.concat([head, content, Buffer.from(`\r\n--${boundary}--\r\n`)]) };
}

function request(port, method, pathname, body, headers = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path: pathname, headers: { Authorization: `Bearer ${TOKEN}`, ...headers } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c)).on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString('utf8') })).on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function buildHistory(port) {
  const list = lengths(MESSAGES);
  let t0 = 1_700_000_000;
  let rows = 0;
  let chars = 0;
  const started = Date.now();
  for (let i = 0; i < list.length; i++) {
    const doc = conversation(list[i], i, t0);
    t0 += list[i] * 30 + 3600;
    rows += doc.messages.length;
    for (const m of doc.messages) chars += m.content.length;
    let file;
    let content;
    if (i % 25 === 0) {
      const text = prose(20_000);
      const name = `notes-${i}.md`;
      doc.messages[0].attachments = [{ kind: 'file', filename: name, path: `attachments/${name}`, size: Buffer.byteLength(text), mime: 'text/markdown' }];
      doc.attachments = [{ filename: name, path: `attachments/${name}`, size: Buffer.byteLength(text), mime: 'text/markdown', is_image: false }];
      file = `conversation-${i}.zip`;
      content = await zipOf({ 'conversation.json': JSON.stringify(doc), [`attachments/${name}`]: text });
    } else {
      file = `conversation-${i}.json`;
      content = Buffer.from(JSON.stringify(doc));
    }
    const { boundary, body } = multipart(file, content);
    const res = await request(port, 'POST', '/api/session/import', body, { 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Content-Length': String(body.length) });
    if (res.status !== 200) throw new Error(`import ${i}: ${res.status} ${res.body}`);
    if (i % 50 === 0) process.stderr.write(`imported ${i + 1}/${list.length} conversations, ${rows} messages, ${Math.round((Date.now() - started) / 1000)} s\n`);
  }
  return { conversations: list.length, messages: rows, textMiB: chars / MiB, buildSeconds: (Date.now() - started) / 1000 };
}

// ---- the servers --------------------------------------------------------------------------------------------
const SATCHEL = `
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
const { startServer } = await import(${JSON.stringify(pathToFileURL(path.join(DIST, 'server', 'index.js')).href)});
const s = await startServer({ host: '127.0.0.1', port: 0, stateDir: process.env.BENCH_STATE_DIR, token: ${JSON.stringify(TOKEN)}, maxUploadBytes: 256 << 20, preloadSpeech: false });
process.send({ port: s.port });
process.on('message', async (m) => {
  if (m === 'stop') { await s.close(); process.exit(0); }
  if (m === 'mem') process.send({ mem: process.memoryUsage() });
  // --alloc-prof: V8's sampling heap profiler over the export, counting what is collected too (where the
  // allocations come from, not only what is left).
  if (m?.allocProf === 'start') {
    globalThis.benchInspector = new Session();
    globalThis.benchInspector.connect();
    globalThis.benchInspector.post('HeapProfiler.startSampling', { samplingInterval: 65536, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true }, (err) => process.send({ allocProf: err ? String(err) : 'started' }));
  }
  if (m?.allocProf === 'stop') {
    globalThis.benchInspector.post('HeapProfiler.stopSampling', (err, r) => {
      if (!err) writeFileSync(m.file, JSON.stringify(r.profile));
      process.send({ allocProf: err ? String(err) : 'stopped' });
    });
  }
});
`;

/** The floor: the same rows, one conversation at a time, a member each, through yazl to the response. */
const FLOOR = `
import http from 'node:http';
import path from 'node:path';
import { Readable } from 'node:stream';
import { createRequire } from 'node:module';
const require = createRequire(${JSON.stringify(path.join(root, 'package.json'))});
const yazl = require('yazl');
const sqlite3 = require('sqlite3');
const db = new sqlite3.Database(path.join(process.env.BENCH_STATE_DIR, 'satchel.db'), sqlite3.OPEN_READONLY);
const all = (sql, p = []) => new Promise((res, rej) => db.all(sql, p, (e, r) => (e ? rej(e) : res(r))));
const server = http.createServer(async (req, res) => {
  const zip = new yazl.ZipFile();
  res.writeHead(200, { 'Content-Type': 'application/zip' });
  zip.outputStream.pipe(res);
  res.on('close', () => zip.outputStream.destroy());
  const ids = await all('SELECT id FROM sessions ORDER BY updated_at DESC');
  for (const { id } of ids) {
    if (res.destroyed) return;
    const rows = await all('SELECT row FROM messages WHERE session_id = ? ORDER BY position', [id]);
    const bytes = Buffer.from('[' + rows.map((r) => r.row).join(',\\n') + ']');
    const done = new Promise((resolve) => zip.addReadStreamLazy(id + '/conversation.json', (cb) => { const s = Readable.from([bytes]); s.on('end', resolve); s.on('close', resolve); cb(null, s); }));
    await done;
  }
  zip.end();
});
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('message', (m) => { if (m === 'stop') process.exit(0); });
`;

async function startChild(script, name) {
  const file = path.join(os.tmpdir(), `i37-export-bench-${name}-${process.pid}.mjs`);
  writeFileSync(file, script);
  const execArgv = name === 'satchel' ? NODE_ARGS : [];
  const child = fork(file, [], { execArgv, env: { ...process.env, SATCHEL_LOG_LEVEL: 'error', BENCH_STATE_DIR: stateDir }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const { port } = await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`${name} exited ${code}`)));
  });
  return {
    port,
    pid: child.pid,
    /** Start or stop (writing `file`) V8's sampling heap profiler in the server; Satchel's server only. */
    allocProf: (what, file) => new Promise((resolve) => {
      const on = (m) => { if (m?.allocProf) { child.off('message', on); resolve(m.allocProf); } };
      child.on('message', on);
      child.send({ allocProf: what, file });
    }),
    /** The server's own view of its memory (process.memoryUsage(), bytes); Satchel's server only. */
    mem: () => new Promise((resolve) => {
      const on = (m) => { if (m?.mem) { child.off('message', on); resolve(m.mem); } };
      child.on('message', on);
      child.send('mem');
    }),
    stop: () => new Promise((resolve) => { child.once('exit', resolve); child.send('stop'); }),
  };
}

// ---- measuring ------------------------------------------------------------------------------------------------
const status = (pid) => readFileSync(`/proc/${pid}/status`, 'utf8');
const kib = (pid, field) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status(pid))[1]);
const rssMiB = (pid) => kib(pid, 'VmRSS') / 1024;
const hwmMiB = (pid) => kib(pid, 'VmHWM') / 1024;
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}
/** Bytes the process has read through system calls (/proc/<pid>/io rchar): the database's pages among them. */
const readMiB = (pid) => Number(/rchar:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))[1]) / MiB;
/** Reset the process's peak RSS to its current RSS (Linux: clear_refs 5). */
const resetPeak = (pid) => writeFileSync(`/proc/${pid}/clear_refs`, '5');

/** GET `pathname`, reading as fast as possible, or pausing after PAUSE_AFTER_BYTES for PAUSE_MS when `pause`. */
function download(port, pid, pathname, { pause = false, keep, breakdown } = {}) {
  return new Promise((resolve, reject) => {
    resetPeak(pid);
    const idle = rssMiB(pid);
    const cpu0 = cpuMs(pid);
    const t0 = performance.now();
    let first;
    let bytes = 0;
    let maxSampled = idle;
    const pauseInfo = {};
    const timer = setInterval(() => (maxSampled = Math.max(maxSampled, rssMiB(pid))), SAMPLE_MS);
    // --breakdown: where the memory is (RssAnon: heap, buffers and native allocations; RssFile: mapped code and
    // files), and V8's own view, sampled every BREAKDOWN_MS; the sample of the highest RSS and each field's highest.
    const most = {};
    let atPeak;
    const inspect = breakdown && setInterval(async () => {
      const text = status(pid);
      const field = (f) => Number(new RegExp(`${f}:\\s+(\\d+) kB`).exec(text)[1]) / 1024;
      const sample = { rss: field('VmRSS'), anon: field('RssAnon'), file: field('RssFile'), shmem: field('RssShmem') };
      let mem;
      try {
        mem = await breakdown.mem();
      } catch {
        return;
      }
      for (const k of ['heapTotal', 'heapUsed', 'external', 'arrayBuffers']) sample[k] = mem[k] / MiB;
      for (const [k, v] of Object.entries(sample)) most[k] = Math.max(most[k] ?? 0, v);
      if (!atPeak || sample.rss > atPeak.rss) atPeak = sample;
    }, BREAKDOWN_MS);
    const chunks = keep ? [] : undefined;
    const req = http.get({ host: '127.0.0.1', port, path: pathname, headers: { Authorization: `Bearer ${TOKEN}` } }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`${pathname}: ${res.statusCode}`));
      let paused = false;
      res.on('data', (c) => {
        first ??= performance.now() - t0;
        bytes += c.length;
        chunks?.push(c);
        if (pause && !paused && bytes >= PAUSE_AFTER_BYTES) {
          paused = true;
          res.pause();
          const rssAt = rssMiB(pid);
          const cpuAt = cpuMs(pid);
          const readAt = readMiB(pid);
          setTimeout(() => {
            pauseInfo.readWhilePausedMiB = readMiB(pid) - readAt;
            pauseInfo.rssAtPauseMiB = rssAt;
            pauseInfo.grewWhilePausedMiB = rssMiB(pid) - rssAt;
            pauseInfo.cpuWhilePausedMs = cpuMs(pid) - cpuAt;
            pauseInfo.pausedGrowthOverIdleMiB = rssMiB(pid) - idle;
            res.resume();
          }, PAUSE_MS);
        }
      });
      res.on('end', () => {
        clearInterval(timer);
        if (inspect) clearInterval(inspect);
        const total = performance.now() - t0;
        if (keep) writeFileSync(keep, Buffer.concat(chunks));
        resolve({ idleMiB: idle, peakMiB: Math.max(hwmMiB(pid), maxSampled), firstByteMs: first, totalMs: total, cpuMs: cpuMs(pid) - cpu0, MiB: bytes / MiB, ...pauseInfo, ...(breakdown ? { atPeak, most } : {}) });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

const fmt = (x, d = 0) => (x === undefined ? '–' : x.toFixed(d));

async function main() {
  let history;
  const marker = path.join(stateDir, 'bench-history.json');
  if (existsSync(marker)) {
    history = JSON.parse(readFileSync(marker, 'utf8'));
  } else {
    await fs.rm(stateDir, { recursive: true, force: true });
    await fs.mkdir(stateDir, { recursive: true, mode: 0o700 });
    const builder = await startChild(SATCHEL, 'build');
    history = await buildHistory(builder.port);
    await builder.stop();
    history.dbMiB = (await fs.stat(path.join(stateDir, 'satchel.db'))).size / MiB;
    writeFileSync(marker, JSON.stringify(history));
  }
  console.error(`history: ${JSON.stringify(history)}`);

  // A fresh server: nothing of the build is in its memory.
  const satchel = await startChild(SATCHEL, 'satchel');
  const floor = await startChild(FLOOR, 'floor');
  await new Promise((r) => setTimeout(r, 3_000));
  // Idle: the fresh servers' RSS before any export (an export may leave memory the next one's "idle" would hide).
  const idle = { satchel: rssMiB(satchel.pid), floor: rssMiB(floor.pid) };
  const results = { satchel: [], floor: [], satchelPaused: [], floorPaused: [] };
  const archive = path.join(os.tmpdir(), `i37-export-bench-${MESSAGES}-${process.pid}.zip`);
  // --satchel-only: Satchel's export alone, no floor and no paused client (a quick look at one build).
  if (flag('--satchel-only')) {
    const breakdown = flag('--breakdown') ? satchel : undefined;
    const before = breakdown && { ...(await satchel.mem()), status: status(satchel.pid).match(/^(VmRSS|RssAnon|RssFile|RssShmem):.*$/gm) };
    const profile = arg('--alloc-prof', undefined);
    if (profile) console.error(`allocation profile: ${await satchel.allocProf('start')}`);
    // --keep-archive <file>: the archive kept, to compare two builds' members (bench/export-compare.mjs).
    const keepArchive = arg('--keep-archive', undefined);
    const r = await download(satchel.port, satchel.pid, '/api/sessions/export', { breakdown, keep: keepArchive && path.resolve(keepArchive) });
    if (profile) console.error(`allocation profile: ${await satchel.allocProf('stop', path.resolve(profile))} (${profile})`);
    console.log(`Satchel alone: fresh idle ${fmt(idle.satchel)} MiB, peak ${fmt(r.peakMiB)} MiB (+${fmt(r.peakMiB - idle.satchel)}), first byte ${fmt(r.firstByteMs, 1)} ms, total ${fmt(r.totalMs)} ms, CPU ${fmt(r.cpuMs)} ms, ${fmt(r.MiB, 1)} MiB`);
    if (breakdown) {
      const f = (o) => Object.entries(o).map(([k, v]) => `${k} ${fmt(v)}`).join(', ');
      console.log(`Idle: ${f(Object.fromEntries(Object.entries(before).filter(([k]) => k !== 'status').map(([k, v]) => [k, v / MiB])))}; ${before.status.join(', ').replace(/\s+/g, ' ')}`);
      console.log(`At the highest sampled RSS (MiB): ${f(r.atPeak)}`);
      console.log(`Each field's highest (MiB): ${f(r.most)}`);
    }
    await satchel.stop();
    await floor.stop();
    return;
  }
  for (let run = 0; run < RUNS; run++) {
    results.satchel.push(await download(satchel.port, satchel.pid, '/api/sessions/export', { keep: run === 0 ? archive : undefined }));
    results.floor.push(await download(floor.port, floor.pid, '/'));
    console.error(`run ${run + 1}: satchel ${JSON.stringify(results.satchel.at(-1))}\n        floor ${JSON.stringify(results.floor.at(-1))}`);
  }
  results.satchelPaused.push(await download(satchel.port, satchel.pid, '/api/sessions/export', { pause: true }));
  results.floorPaused.push(await download(floor.port, floor.pid, '/', { pause: true }));
  console.error(`paused: satchel ${JSON.stringify(results.satchelPaused[0])}\n        floor ${JSON.stringify(results.floorPaused[0])}`);
  await satchel.stop();
  await floor.stop();

  const checks = {};
  for (const [tool, args] of [['unzip', ['-tq', archive]], ['7z', ['t', archive]]]) {
    try {
      const out = execFileSync(tool, args, { maxBuffer: 64 * MiB }).toString();
      checks[tool] = tool === 'unzip' ? out.trim().split('\n').at(-1) : (/Everything is Ok/.test(out) ? 'Everything is Ok' : out.slice(-200));
    } catch (err) {
      checks[tool] = `FAILED: ${String(err.stdout ?? err).slice(-300)}`;
    }
  }
  await fs.rm(archive, { force: true });

  const m = (list, key) => median(list.map((r) => r[key]));
  const row = (name, list, base) => {
    const over = median(list.map((r) => r.peakMiB - base));
    return `| ${name} | ${fmt(base)} | ${fmt(m(list, 'peakMiB'))} | ${fmt(over)} | ${fmt(m(list, 'firstByteMs'), 1)} | ${fmt(m(list, 'totalMs'))} | ${fmt(m(list, 'cpuMs'))} | ${fmt(m(list, 'MiB'), 1)} |`;
  };
  const s = results.satchelPaused[0];
  const f = results.floorPaused[0];
  console.log(`History: ${history.conversations} conversations, ${history.messages} messages, ${fmt(history.textMiB, 1)} MiB of text, database ${fmt(history.dbMiB)} MiB (built through the import in ${fmt(history.buildSeconds)} s). ${RUNS} runs, medians.`);
  console.log('');
  console.log('| | idle RSS MiB (fresh start) | peak RSS MiB | peak − idle MiB | first byte ms | total ms | server CPU ms | archive MiB |');
  console.log('|---|---|---|---|---|---|---|---|');
  console.log(row('Satchel Export all', results.satchel, idle.satchel));
  console.log(row('floor: plain yazl zip of the rows', results.floor, idle.floor));
  console.log('');
  console.log(`Ratios Satchel/floor: CPU ${fmt(m(results.satchel, 'cpuMs') / m(results.floor, 'cpuMs'), 2)}, peak − idle ${fmt(median(results.satchel.map((r) => r.peakMiB - idle.satchel)) / median(results.floor.map((r) => r.peakMiB - idle.floor)), 2)}, total time ${fmt(m(results.satchel, 'totalMs') / m(results.floor, 'totalMs'), 2)}.`);
  console.log(`Paused after 1 MiB for ${PAUSE_MS / 1000} s: Satchel RSS at the pause ${fmt(s.rssAtPauseMiB)} MiB (${fmt(s.idleMiB)} before this download, fresh idle ${fmt(idle.satchel)}), grew ${fmt(s.grewWhilePausedMiB, 1)} MiB, read ${fmt(s.readWhilePausedMiB, 1)} MiB and used ${fmt(s.cpuWhilePausedMs)} ms CPU while paused, peak − idle over the whole download ${fmt(s.peakMiB - idle.satchel)} MiB; floor: at the pause ${fmt(f.rssAtPauseMiB)} MiB (${fmt(f.idleMiB)} before it), grew ${fmt(f.grewWhilePausedMiB, 1)} MiB, read ${fmt(f.readWhilePausedMiB, 1)} MiB, ${fmt(f.cpuWhilePausedMs)} ms CPU while paused.`);
  console.log(`Archive check (run 1): unzip -t: ${checks.unzip}; 7z t: ${checks['7z']}.`);
}

await main();
