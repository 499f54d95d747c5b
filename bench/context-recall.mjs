// Issue 36's measure: do earlier documents stay with the conversation? The built server (dist/, or --dist DIR) in a
// child pinned to core 0, with its own state folder, talks to an OpenAI-compatible fake in this process that
// records every request. One conversation gets the 20 documents of bench/corpus/context/ as attachments over four
// turns; then each of the 60 questions of questions.json is asked as a follow-up turn, and a question counts as
// answered when its phrase (case, whitespace and Markdown escapes folded) is in the text of the request the model
// receives for that turn. Run at the default per-turn budget and at one where every document fits whole.
// Timing: a turn's time-to-request (POST /api/chat/start sent → the fake receives the request) against the same
// conversation without the documents (same turns, no attachments: the floor, same run), paired by question; the
// server's CPU time per turn from /proc/<pid>/stat (utime + stime around the turn, until its stream ends).
// Usage: npm run build && node bench/context-recall.mjs [--dist DIR] [--whole-budget 4000000] [--only default|whole]
//        [--limit N (first N questions)] [--misses]
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { arg, flag, hasCommand, machine, median, pct } from './lib.mjs';

const DIST = path.resolve(arg('--dist', 'dist'));
const CORPUS = path.resolve('bench/corpus/context');
const WHOLE_BUDGET = Number(arg('--whole-budget', 4_000_000));
const ONLY = arg('--only', 'both');
const LIMIT = Number(arg('--limit', 1e9));
const SHOW_MISSES = flag('--misses');
/** --dump DIR: every recorded request body written there (n-<turn>.json), to read what the model got. */
const DUMP = arg('--dump', undefined);
let dumped = 0;
const TOKEN = 'c'.repeat(43);
/** The documents go in over this many turns (chat/start takes at most 20 attachments; a person adds a few at a time). */
const UPLOAD_TURNS = 4;
/** A turn that takes longer has failed (OCR of the scan, the 150-page PDF on its first read, a loaded machine). */
const TURN_TIMEOUT_MS = 600_000;
/** The 150-page PDF is made in the run (1.2 MiB, not committed) and kept here between runs. */
const HANDBOOK_CACHE = path.resolve('.cache', 'context-corpus');
const HANDBOOK = 'node-package-handbook.pdf';
const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

const { questions } = JSON.parse(fs.readFileSync(path.join(CORPUS, 'questions.json'), 'utf8'));
const asked = questions.slice(0, LIMIT);
const { isTitleRequest } = await import(new URL(`file://${path.join(DIST, 'server', 'agent', 'title.js')}`).href);
const { contentChunk, usageChunk } = await import(new URL(`file://${path.join(DIST, 'server', 'testing', 'fake-agent.js')}`).href);

// ---- the corpus ------------------------------------------------------------------------------------------------

function corpusFiles() {
  const handbook = path.join(HANDBOOK_CACHE, HANDBOOK);
  if (!fs.existsSync(handbook)) {
    console.log(`making ${HANDBOOK} (make.sh handbook) …`);
    fs.mkdirSync(HANDBOOK_CACHE, { recursive: true });
    execFileSync('sh', [path.join(CORPUS, 'make.sh'), HANDBOOK_CACHE, 'handbook'], { stdio: ['ignore', 'ignore', 'ignore'] });
  }
  // The documents the questions name, in name order: nothing else in the folder (a reader's sidecar) is uploaded.
  const names = [...new Set(questions.map((q) => q.document))].sort();
  const files = names.map((n) => (n === HANDBOOK ? handbook : path.join(CORPUS, n)));
  for (const f of files) if (!fs.existsSync(f)) throw new Error(`${f} is missing`);
  return files;
}

/** The handbook's pages are made here, not committed: each of its questions' phrases must still be on its page. */
async function checkHandbookPages(file) {
  const { extractText, getDocumentProxy } = await import('unpdf');
  const pdf = await getDocumentProxy(new Uint8Array(fs.readFileSync(file)));
  const { text } = await extractText(pdf, { mergePages: false });
  const off = questions.filter((q) => q.document === HANDBOOK && !fold(text[q.where.page - 1] ?? '').includes(fold(q.phrase)));
  if (off.length) console.log(`WARNING: ${HANDBOOK} as made here has ${off.length} phrase(s) off their page: ${off.map((q) => q.id).join(', ')}`);
  return text.length;
}

// ---- the fake upstream (this process) -----------------------------------------------------------------------

/**
 * Case, width, whitespace, Markdown's backslash escapes and link targets folded (`[printf-style](<url>)` reads
 * "printf-style", as an Office document's link becomes Markdown): what the model reads, not how it is spelt.
 */
function fold(s) {
  return s
    .normalize('NFKC')
    .replace(/\[([^\]\n]*)\]\(<?[^)>\s]*>?\)/g, '$1')
    .replace(/\\([\\`*_{}[\]()#+\-.!|~<>"'])/g, '$1')
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/[\u201c\u201d]/g, '"')
    .replace(/\s+/g, ' ')
    .toLowerCase();
}

/** Every text the model is given in a request: each message's content (string or parts), tool results included. */
function requestText(body) {
  const out = [];
  for (const m of body.messages ?? []) {
    if (typeof m.content === 'string') out.push(m.content);
    else if (Array.isArray(m.content)) for (const p of m.content) if (typeof p.text === 'string') out.push(p.text);
  }
  return out.join('\n');
}

const waiting = [];
const agent = http.createServer(async (req, res) => {
  const at = performance.now();
  const parts = [];
  for await (const part of req) parts.push(part);
  if (req.method !== 'POST' || !req.url.endsWith('/chat/completions')) {
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
    return;
  }
  const raw = Buffer.concat(parts).toString();
  const body = JSON.parse(raw);
  // Satchel's title request after the first exchange is not a turn of the bench: refused, the derived title stays.
  if (isTitleRequest(body.messages)) {
    res.writeHead(503).end();
    return;
  }
  if (DUMP) fs.writeFileSync(path.join(DUMP, `${String(++dumped).padStart(3, '0')}.json`), raw);
  waiting.shift()?.({ at, raw, body });
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.write(`data: ${JSON.stringify(contentChunk('Noted.'))}\n\n`);
  res.write(`data: ${JSON.stringify({ ...contentChunk(''), choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`);
  res.write(`data: ${JSON.stringify(usageChunk(10, 1))}\n\n`);
  res.end('data: [DONE]\n\n');
});
await new Promise((r) => agent.listen(0, '127.0.0.1', r));
const agentUrl = `http://127.0.0.1:${agent.address().port}`;
const nextRequest = () => new Promise((r) => waiting.push(r));

// ---- the server (a child) --------------------------------------------------------------------------------------

async function startSatchel(budget) {
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-bench-context-'));
  const module = new URL(`file://${path.join(DIST, 'server', 'index.js')}`).href;
  // A script file, not `node -e` (lib.mjs startChild): worker threads inherit the parent's execArgv, and with
  // `--input-type=module` there the PDF and Office workers fail to start (every PDF then reads as damaged).
  const script = `${stateDir}.server.mjs`;
  fs.writeFileSync(
    script,
    `const { startServer } = await import(${JSON.stringify(module)});
const s = await startServer({ host: '127.0.0.1', port: 0, stateDir: ${JSON.stringify(stateDir)}, token: ${JSON.stringify(TOKEN)}, maxUploadBytes: 64 << 20, preloadSpeech: false });
console.log(JSON.stringify({ port: s.port }));`,
  );
  const wrap = hasCommand('taskset') ? ['taskset', '-c', '0', process.execPath] : [process.execPath];
  const child = spawn(wrap[0], [...wrap.slice(1), script], {
    env: {
      ...process.env,
      SATCHEL_AGENT_BASE_URL: agentUrl,
      SATCHEL_AGENT_MODEL: 'fake-model',
      SATCHEL_AGENT_KIND: 'openai',
      SATCHEL_LOG_LEVEL: arg('--log-level', 'error'),
      SATCHEL_AGENT_TIMEOUT_MS: String(TURN_TIMEOUT_MS),
      SATCHEL_AGENT_TURN_MAX_MS: String(TURN_TIMEOUT_MS),
      ...(budget ? { SATCHEL_AGENT_CONTEXT_CHARS: String(budget) } : {}),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const info = await new Promise((resolve, reject) => {
    let buf = '';
    child.stdout.on('data', (d) => {
      buf += d;
      const nl = buf.indexOf('\n');
      if (nl !== -1) resolve(JSON.parse(buf.slice(0, nl)));
    });
    child.once('exit', (code) => reject(new Error(`server exited ${code}`)));
  });
  child.stdout.resume();
  const base = `http://127.0.0.1:${info.port}`;
  const auth = { Authorization: `Bearer ${TOKEN}`, Origin: base };
  const json = async (method, p, body) => {
    const res = await fetch(`${base}${p}`, { method, headers: { ...auth, 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${text.slice(0, 300)}`);
    return JSON.parse(text);
  };
  const cpuTicks = () => {
    const stat = fs.readFileSync(`/proc/${child.pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(f[11]) + Number(f[12]); // utime, stime (fields 14 and 15)
  };
  return {
    async newSession() {
      const s = await json('POST', '/api/session/new', {});
      return s.session_id ?? s.session?.session_id;
    },
    async upload(sessionId, file) {
      const form = new FormData();
      form.append('session_id', sessionId);
      form.append('file', new Blob([fs.readFileSync(file)]), path.basename(file));
      const res = await fetch(`${base}/api/upload`, { method: 'POST', headers: auth, body: form });
      const text = await res.text();
      if (!res.ok) throw new Error(`upload ${path.basename(file)}: ${res.status} ${text}`);
      return { kind: 'file', ...JSON.parse(text) };
    },
    /** One turn: its time-to-request, the request the model got, the server's CPU time (ms) until the stream ended. */
    async turn(sessionId, message, attachments = []) {
      const got = nextRequest();
      const cpu0 = cpuTicks();
      const t0 = performance.now();
      const { stream_id: streamId } = await json('POST', '/api/chat/start', { session_id: sessionId, message, attachments });
      const stream = await fetch(`${base}/api/chat/stream?stream_id=${streamId}`, { headers: auth, signal: AbortSignal.timeout(TURN_TIMEOUT_MS) });
      const frames = await stream.text();
      const cpuMs = ((cpuTicks() - cpu0) * 1000) / CLK_TCK;
      if (!/event: done/.test(frames)) throw new Error(`turn "${message.slice(0, 40)}" did not end done: ${frames.slice(-400)}`);
      const request = await got;
      return { ttrMs: request.at - t0, cpuMs, request, frames };
    },
    async stop() {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      fs.rmSync(stateDir, { recursive: true, force: true });
      fs.rmSync(script, { force: true });
    },
  };
}

// ---- a run -----------------------------------------------------------------------------------------------------

const UPLOAD_TEXTS = [
  'Here are the license texts and readmes I am reviewing this week.',
  'A few more: the Word versions and two spreadsheets.',
  'The slide decks, the scanned pages and the zip of text files.',
  'And the long package handbook.',
];

/** The 20 documents over UPLOAD_TURNS turns, then each question; `withDocs` false: the same turns without files. */
async function conversation(satchel, files, withDocs) {
  const id = await satchel.newSession();
  const groups = Array.from({ length: UPLOAD_TURNS }, (_, k) => files.filter((_, i) => i % UPLOAD_TURNS === k));
  const uploadTurns = [];
  for (const [k, group] of groups.entries()) {
    const attachments = [];
    if (withDocs) for (const f of group) attachments.push(await satchel.upload(id, f));
    const t = await satchel.turn(id, UPLOAD_TEXTS[k], attachments);
    uploadTurns.push({ ttrMs: t.ttrMs, cpuMs: t.cpuMs, chars: t.request.raw.length });
  }
  const turns = [];
  for (const q of asked) {
    const t = await satchel.turn(id, q.question);
    const text = fold(requestText(t.request.body));
    turns.push({ q, hit: text.includes(fold(q.phrase)), ttrMs: t.ttrMs, cpuMs: t.cpuMs, chars: t.request.raw.length, context: /event: context/.test(t.frames) });
  }
  return { uploadTurns, turns };
}

const f1 = (x) => x.toFixed(1);
function summary(label, turns) {
  const hits = turns.filter((t) => t.hit).length;
  return `${label}: recall ${hits}/${turns.length} = ${f1((100 * hits) / turns.length)} %`;
}
function byKind(turns) {
  const kinds = {};
  for (const t of turns) {
    const k = t.q.document === HANDBOOK ? '150-page pdf' : t.q.document.includes('scanned') ? 'scan' : path.extname(t.q.document).slice(1);
    kinds[k] ??= [0, 0];
    kinds[k][0] += t.hit ? 1 : 0;
    kinds[k][1] += 1;
  }
  return Object.entries(kinds).map(([k, [h, n]]) => `${k} ${h}/${n}`).join(', ');
}
const stats = (xs) => !xs.length ? 'none' : `median ${f1(median(xs))} ms, p95 ${f1(pct(xs, 95))} ms`;

const files = corpusFiles();
const pages = await checkHandbookPages(files.find((f) => path.basename(f) === HANDBOOK));
const bytes = files.reduce((n, f) => n + fs.statSync(f).size, 0);
console.log(`machine: ${machine()}`);
console.log(`build: ${DIST}; corpus: ${files.length} documents, ${(bytes / 2 ** 20).toFixed(2)} MiB (${HANDBOOK}: ${pages} pages); ${asked.length} questions`);

const runs = [];
if (ONLY !== 'whole') runs.push({ label: 'default budget (200,000 characters)', budget: undefined, floor: true });
if (ONLY !== 'default') runs.push({ label: `budget ${WHOLE_BUDGET.toLocaleString('en')} characters (every document fits whole)`, budget: WHOLE_BUDGET, floor: false });
try {
  for (const run of runs) {
    const satchel = await startSatchel(run.budget);
    try {
      const docs = await conversation(satchel, files, true);
      console.log(`\n${summary(run.label, docs.turns)}  [${byKind(docs.turns)}]`);
      console.log(`  upload turns: time-to-request ${docs.uploadTurns.map((t) => f1(t.ttrMs)).join(', ')} ms; request ${docs.uploadTurns.map((t) => t.chars.toLocaleString('en')).join(', ')} bytes`);
      console.log(`  follow-up request size: median ${median(docs.turns.map((t) => t.chars)).toLocaleString('en')} bytes; context frame sent: ${docs.turns.filter((t) => t.context).length}/${docs.turns.length}`);
      if (SHOW_MISSES || docs.turns.filter((t) => !t.hit).length <= 12)
        for (const t of docs.turns.filter((x) => !x.hit)) console.log(`  missed ${t.q.id}: ${t.q.document} ${JSON.stringify(t.q.where)} "${t.q.phrase}"`);
      const ttr = docs.turns.map((t) => t.ttrMs);
      const cpu = docs.turns.map((t) => t.cpuMs);
      console.log(`  follow-up time-to-request with 20 earlier documents: ${stats(ttr)}; server CPU per turn: ${stats(cpu)}`);
      if (run.floor) {
        const bare = await conversation(satchel, files, false);
        const ttr0 = bare.turns.map((t) => t.ttrMs);
        const cpu0 = bare.turns.map((t) => t.cpuMs);
        const added = docs.turns.map((t, i) => t.ttrMs - bare.turns[i].ttrMs);
        console.log(`  floor, the same turns without documents: time-to-request ${stats(ttr0)}; server CPU per turn: ${stats(cpu0)}`);
        console.log(`  added by the documents (paired by question): time-to-request ${stats(added)}; CPU per turn median ${f1(median(cpu) - median(cpu0))} ms (ticks of ${f1(1000 / CLK_TCK)} ms)`);
      }
    } finally {
      await satchel.stop();
    }
  }
} finally {
  agent.close();
}
