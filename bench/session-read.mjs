// Issue 37, finding 1: what reading a long conversation costs the server. A conversation of --messages rows (the
// last --appends of them added one by one through POST /api/session/message, the rest imported) of
// real README English with code blocks (the READMEs under node_modules, picked by a seeded generator) is imported
// through POST /api/session/import into a fresh server of each build (before: the commit this work started from,
// after: HEAD, each compiled into .cache/ by lib.mjs buildRevision), then read with GET /api/session over one
// kept-alive connection, sequentially. The floor, in the same run: a bare node:http server sending the same
// bytes (the body the build answered, held in a Buffer), read the same way. Per build:
//   import    CPU ms of POST /api/session/import, until the server is idle again (its search index included)
//   first     CPU ms of the first read after the import (what the first open costs; one read, 10 ms ticks)
//   warm      CPU ms per read, median over batches of --batch reads (utime+stime of the server's /proc/<pid>/stat)
//   append    CPU ms of a read right after one more message (the conversation changed), median over --appends
//   wall      ms per warm read at the client, median
// Usage: node bench/session-read.mjs [--messages 10000] [--batches 7] [--batch 10] [--appends 7] [--before REV]
//   [--after REV] [--seed 37] [--prof DIR] (from the repository root; --prof writes each build's --cpu-prof there)
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { arg, buildRevision, machine, median } from './lib.mjs';

const MESSAGES = Number(arg('--messages', '10000'));
const BATCHES = Number(arg('--batches', '7'));
const BATCH = Number(arg('--batch', '10'));
const APPENDS = Number(arg('--appends', '7'));
const BEFORE = arg('--before', 'c5ea2d1');
const AFTER = arg('--after', 'HEAD');
const SEED = Number(arg('--seed', '37'));
const PROF = arg('--prof', '');
const TOKEN = 'bench-token-0123456789abcdef';
const BOUNDARY = 'benchSessionReadBoundary';
const SETTLE_MS = 300;
const TICK_MS = 10; // USER_HZ is 100 on Linux
/** The import counts until the server spends at most one tick in this long. */
const IDLE_POLL_MS = 500;
const README_LIMIT = 400;

/** mulberry32: the same conversation for the same seed. */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Paragraphs and fenced code blocks of the READMEs under node_modules, in a fixed order. */
function readmeBlocks() {
  const files = [];
  const walk = (dir, depth) => {
    let names;
    try {
      names = readdirSync(dir).sort();
    } catch {
      return;
    }
    for (const name of names) {
      const p = path.join(dir, name);
      if (/^readme\.md$/i.test(name)) files.push(p);
      else if (depth < 2 && !name.startsWith('.') && statSync(p, { throwIfNoEntry: false })?.isDirectory()) walk(p, depth + (name.startsWith('@') ? 0 : 1));
    }
  };
  walk(path.resolve('node_modules'), 0);
  const blocks = [];
  for (const f of files.slice(0, README_LIMIT)) {
    const text = readFileSync(f, 'utf8');
    // A fence is one block with its blank lines; other text splits at blank lines.
    for (const piece of text.split(/(```[\s\S]*?```)/)) {
      if (piece.startsWith('```')) blocks.push(piece);
      else for (const para of piece.split(/\n\s*\n/)) if (para.trim().length > 40) blocks.push(para.trim());
    }
  }
  return blocks;
}

function conversation(n) {
  const blocks = readmeBlocks();
  const rand = rng(SEED);
  const pick = () => blocks[Math.floor(rand() * blocks.length)];
  const messages = [];
  const t0 = 1_767_000_000;
  for (let i = 0; i < n; i++) {
    const user = i % 2 === 0;
    const count = user ? 1 + Math.floor(rand() * 2) : 3 + Math.floor(rand() * 6);
    const content = Array.from({ length: count }, pick).join('\n\n').slice(0, user ? 1_500 : 6_000);
    messages.push({ role: user ? 'user' : 'assistant', content, timestamp: t0 + i * 30 });
  }
  return { satchel_export: 1, title: 'A long conversation about packages', messages, attachments: [] };
}

function multipart(filename, bytes) {
  return Buffer.concat([
    Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/json\r\n\r\n`),
    bytes,
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ]);
}

function spawnWithOrigin(args, cwd, env = {}) {
  const child = spawn(process.execPath, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, SATCHEL_LOG_LEVEL: 'error', ...env } });
  const origin = new Promise((resolve, reject) => {
    let buf = '';
    child.stdout.on('data', (d) => {
      buf += d;
      const nl = buf.indexOf('\n');
      if (nl !== -1) resolve(JSON.parse(buf.slice(0, nl)).origin);
    });
    child.once('exit', (code) => reject(new Error(`server exited ${code}`)));
  });
  return { child, origin };
}

function startSatchel(dist, stateDir, label) {
  const workspace = path.join(stateDir, '..', 'workspace');
  const script = `await (await import('node:fs/promises')).mkdir(${JSON.stringify(workspace)}, { recursive: true });
const { startServer } = await import(${JSON.stringify(pathToFileURL(path.join(dist, 'server', 'index.js')).href)});
const s = await startServer({ host: '127.0.0.1', port: 0, stateDir: ${JSON.stringify(stateDir)}, token: ${JSON.stringify(TOKEN)}, maxUploadBytes: 512 * 1024 * 1024, defaultWorkspace: ${JSON.stringify(workspace)} });
process.on('SIGTERM', () => process.exit(0));
process.stdout.write(JSON.stringify({ origin: s.origin }) + '\\n');`;
  const prof = PROF ? ['--cpu-prof', '--cpu-prof-dir', PROF, '--cpu-prof-name', `${label}.cpuprofile`] : [];
  return spawnWithOrigin([...prof, '--input-type=module', '-e', script], path.dirname(dist));
}

/** The floor: a bare node:http server answering every request with the same bytes, held in memory. */
function startFloor(file) {
  const script = `const http = await import('node:http');
const body = (await import('node:fs')).readFileSync(${JSON.stringify(file)});
const s = http.createServer((req, res) => { req.resume(); res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length }); res.end(body); });
s.listen(0, '127.0.0.1', () => process.stdout.write(JSON.stringify({ origin: 'http://127.0.0.1:' + s.address().port }) + '\\n'));
process.on('SIGTERM', () => process.exit(0));`;
  return spawnWithOrigin(['--input-type=module', '-e', script], process.cwd());
}

async function cpuMs(pid) {
  const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * TICK_MS;
}

const newAgent = () => new http.Agent({ keepAlive: true, maxSockets: 1 });
let agent = newAgent();

function get(url) {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent, headers: { Authorization: `Bearer ${TOKEN}` } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => (res.statusCode === 200 ? resolve(Buffer.concat(chunks)) : reject(new Error(`${url}: ${res.statusCode} ${Buffer.concat(chunks)}`))));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

async function post(origin, pathname, body, type = 'application/json') {
  const res = await fetch(`${origin}${pathname}`, { method: 'POST', headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': type }, body });
  const text = await res.text();
  if (!res.ok) throw new Error(`${pathname}: ${res.status} ${text.slice(0, 200)}`);
  return JSON.parse(text);
}

/** The server's CPU ms once it is idle again (the import's work after its answer, the search index, counted too). */
async function untilIdle(pid) {
  let last = await cpuMs(pid);
  for (;;) {
    await new Promise((r) => setTimeout(r, IDLE_POLL_MS));
    const now = await cpuMs(pid);
    if (now - last <= TICK_MS) return now;
    last = now;
  }
}

/** CPU ms and wall ms per read, over `batches` batches of `batch` reads: medians. */
async function measureReads(pid, url, batches, batch) {
  const cpu = [];
  const wall = [];
  for (let b = 0; b < batches; b++) {
    const c0 = await cpuMs(pid);
    for (let i = 0; i < batch; i++) {
      const t0 = performance.now();
      await get(url);
      wall.push(performance.now() - t0);
    }
    cpu.push(((await cpuMs(pid)) - c0) / batch);
  }
  return { cpu: median(cpu), wall: median(wall) };
}

async function runBuild(label, dist, exportBytes) {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), `satchel-bench-read-${label}-`));
  const { child, origin: originP } = startSatchel(dist, path.join(dir, 'state'), label);
  try {
    const origin = await originP;
    const i0 = await cpuMs(child.pid);
    const imported = await post(origin, '/api/session/import', multipart('conversation.json', exportBytes), `multipart/form-data; boundary=${BOUNDARY}`);
    const importCpu = (await untilIdle(child.pid)) - i0;
    const id = imported.session.session_id;
    const url = `${origin}/api/session?session_id=${id}`;
    const c0 = await cpuMs(child.pid);
    await get(url);
    const first = (await cpuMs(child.pid)) - c0;
    // The import holds all but the appended rows (a conversation holds at most 10,000): the warm reads are of all.
    const append = [];
    for (let i = 0; i < APPENDS; i++) {
      await post(origin, '/api/session/message', JSON.stringify({ session_id: id, text: `One more question, number ${i}: how do I pin a version?`, answer: 'summary' }));
      // The append's own work after its answer (the search index) is not the read's.
      await new Promise((r) => setTimeout(r, SETTLE_MS));
      const a0 = await cpuMs(child.pid);
      await get(url);
      append.push((await cpuMs(child.pid)) - a0);
    }
    const body = await get(url);
    const warm = await measureReads(child.pid, url, BATCHES, BATCH);
    const file = path.join(dir, 'body.json');
    await fs.writeFile(file, body);
    return { label, importCpu, first, warm, append: median(append), bytes: body.length, file, dir };
  } finally {
    agent.destroy();
    agent = newAgent();
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

async function runFloor(file) {
  const { child, origin: originP } = startFloor(file);
  try {
    const origin = await originP;
    await get(origin);
    return await measureReads(child.pid, origin, BATCHES, BATCH);
  } finally {
    agent.destroy();
    agent = newAgent();
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

const f1 = (n) => n.toFixed(1);
const before = buildRevision(BEFORE, 'bench-read');
const after = buildRevision(AFTER, 'bench-read');
const doc = conversation(MESSAGES - APPENDS);
const exportBytes = Buffer.from(JSON.stringify(doc));
if (PROF) await fs.mkdir(PROF, { recursive: true });
console.log(`# session-read: ${MESSAGES} messages (${(exportBytes.length / 2 ** 20).toFixed(1)} MiB of export JSON, seed ${SEED}); ${machine()}`);
const results = [];
for (const [label, build] of [
  [`before ${before.commit}`, before],
  [`after ${after.commit}`, after],
]) {
  const r = await runBuild(label.split(' ')[0], build.out, exportBytes);
  const floor = await runFloor(r.file);
  await fs.rm(r.dir, { recursive: true, force: true });
  results.push({ ...r, label, floor });
}
console.log('| build | body MiB | import CPU ms | first read CPU ms | warm CPU ms/read | floor CPU ms/read | ratio | read after an append CPU ms | warm wall ms | floor wall ms | wall ratio |');
console.log('|---|---|---|---|---|---|---|---|---|---|---|');
for (const r of results) {
  console.log(
    `| ${r.label} | ${(r.bytes / 2 ** 20).toFixed(2)} | ${f1(r.importCpu)} | ${f1(r.first)} | ${f1(r.warm.cpu)} | ${f1(r.floor.cpu)} | ${(r.warm.cpu / r.floor.cpu).toFixed(2)} | ${f1(r.append)} | ${f1(r.warm.wall)} | ${f1(r.floor.wall)} | ${(r.warm.wall / r.floor.wall).toFixed(2)} |`,
  );
}
