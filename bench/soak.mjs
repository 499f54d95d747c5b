// Issue 37, finding 8: a day of use compressed into minutes, then idle. The built server (a child, started from a
// script file: `node -e` breaks the PDF and Office workers) talks to a fake OpenAI-compatible agent in this process
// (the streamed chunks of server/testing/fake-agent.ts). USERS clients loop over: uploads (a text file, then in turn
// a text PDF, a scanned PDF that goes through OCR, a real screenshot PNG, a rendered 1280×800 screenshot), a turn
// that sends those files (the PDF, OCR and image readers run), a search, and MCP reads with the official SDK client
// (list_sessions, read_session, read_attachment, search); files are dropped into a watched Inbox folder as they go.
// Every SAMPLE_MS the child reports RSS, RssAnon, RssFile, the JS heap, external, arrayBuffers, open descriptors and
// threads, and its child processes (the OCR and PDF workers' hosts) with their RSS. After the soak the clients stop
// and the server is left alone for --idle-minutes; the figure is the idle
// RSS at the end over the idle RSS after start (before any work), target ≤ 1.3. Then, for the record only, a forced
// full GC (the server never forces one itself) shows how much of what is left is the JS heap.
// The server is started by its command line (see below); its memory is read from inside (bench/soak-sampler.mjs).
// Usage: npm run build && node bench/soak.mjs [--minutes 12] [--idle-minutes 2] [--users 3] [--json out.json] [--dist .cache/x/dist] [--heap-snapshot out.heapsnapshot] [--no-mcp]
import fs from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { spawn } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { hasCommand, machine, tempDir } from './lib.mjs';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '12' },
    'idle-minutes': { type: 'string', default: '2' },
    users: { type: 'string', default: '3' },
    json: { type: 'string' },
    /** Another build's dist folder (a before/after comparison), inside the project so node_modules resolve. */
    dist: { type: 'string' },
    /** Where to copy a heap snapshot of the server taken after the idle (before the forced GC). */
    'heap-snapshot': { type: 'string' },
    /** No MCP client (for the record: how much of the day's memory the MCP endpoint's modules are). */
    'no-mcp': { type: 'boolean', default: false },
  },
});
const SOAK_MS = Number(values.minutes) * 60_000;
const IDLE_MS = Number(values['idle-minutes']) * 60_000;
const USERS = Number(values.users);
/** How often the server's memory is sampled. */
const SAMPLE_MS = 5_000;
/** The settle after start before the baseline is read: the listings, the Inbox scan and the first timers done. */
const START_SETTLE_MS = 15_000;
/** Turns per conversation before a user starts a new one (a day holds many short conversations). */
const TURNS_PER_SESSION = 8;
/** Words streamed per reply, fast, in chunks of a few words (a reply of a page). */
const REPLY_WORDS = 400;
const WORDS_PER_CHUNK = 4;
const TOKEN = 'soak-token';
const TARGET = 1.3;
/** V8's --bytecode-old-age in Node 20: full collections a function's bytecode survives unexecuted. */
const BYTECODE_OLD_AGE = 5;
/** How long the server gets to answer a sample (a heap snapshot takes seconds at load), and how often its answer is looked for. */
const ASK_TIMEOUT_MS = 60_000;
const ASK_POLL_MS = 20;
/** How long a SIGTERM gets to stop the server before it is killed. */
const STOP_TIMEOUT_MS = 15_000;
/** The command line's ready line (server/headless.ts READY_PREFIX). */
const READY_PREFIX = 'Satchel is running at ';

const here = path.dirname(new URL(import.meta.url).pathname);
const distRoot = values.dist ? new URL(`file://${path.resolve(values.dist)}/`) : new URL('../dist/', import.meta.url);
const dist = (p) => new URL(`server/${p}`, distRoot).href;
const { contentChunk, usageChunk } = await import(dist('testing/fake-agent.js'));
const { isTitleRequest } = await import(dist('agent/title.js'));
const { renderScreenshot, renderPage, prose } = await import(dist('ocr/testing/render.js'));

// ---- the files a day brings --------------------------------------------------------------------------------------
const corpus = path.join(here, 'corpus', 'context');
const shots = path.join(here, '..', 'docs', 'screenshots');
const pdfs = ['apache-2.0-license.pdf', 'semver-readme.pdf', 'dotenv-readme.pdf', 'scanned-licenses.pdf'].map((n) => ({ name: n, bytes: readFileSync(path.join(corpus, n)), type: 'application/pdf' }));
const pngs = (await fs.readdir(shots)).filter((n) => n.endsWith('.png')).slice(0, 6).map((n) => ({ name: n, bytes: readFileSync(path.join(shots, n)), type: 'image/png' }));
const rendered = await renderScreenshot();
pngs.push({ name: 'rendered-screenshot.png', bytes: rendered.png, type: 'image/png' });
const page = await renderPage(prose(260, 40), { points: 11, dpi: 150 });
pngs.push({ name: 'photographed-page.png', bytes: page.png, type: 'image/png' });
const WORDS = 'ledger harbour invoice quarterly window copper lantern meadow orbit parcel quartz ribbon saddle timber velvet walnut'.split(' ');
const textFile = (i) => ({ name: `notes-${i}.md`, type: 'text/markdown', bytes: Buffer.from(Array.from({ length: 3000 }, (_, k) => WORDS[(i * 7 + k * 3) % WORDS.length]).join(' ') + '\n') });
/** The non-text file of round i: PDFs and images in turn. */
const richFile = (i) => (i % 2 ? pdfs[(i >> 1) % pdfs.length] : pngs[(i >> 1) % pngs.length]);

// ---- the fake agent ------------------------------------------------------------------------------------------------
let agentRequests = 0;
const agent = http.createServer(async (req, res) => {
  const parts = [];
  for await (const part of req) parts.push(part);
  if (req.method !== 'POST' || !req.url.endsWith('/chat/completions')) return void res.writeHead(404).end();
  agentRequests++;
  const body = JSON.parse(Buffer.concat(parts).toString());
  if (isTitleRequest(body.messages)) {
    res.writeHead(200, { 'content-type': 'application/json' });
    return void res.end(JSON.stringify({ id: 't', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'A soak conversation' }, finish_reason: 'stop' }] }));
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (let w = 0; w < REPLY_WORDS; w += WORDS_PER_CHUNK) {
    if (res.destroyed) return;
    const words = Array.from({ length: WORDS_PER_CHUNK }, (_, k) => WORDS[(w + k) % WORDS.length]).join(' ');
    res.write(`data: ${JSON.stringify(contentChunk(` ${words}`))}\n\n`);
    if (w % 40 === 0) await sleep(1);
  }
  res.write(`data: ${JSON.stringify({ ...contentChunk(''), choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`);
  res.write(`data: ${JSON.stringify(usageChunk(100, REPLY_WORDS))}\n\n`);
  res.end('data: [DONE]\n\n');
});
await new Promise((r) => agent.listen(0, '127.0.0.1', r));
const agentUrl = `http://127.0.0.1:${agent.address().port}/v1`;

// ---- the server ----------------------------------------------------------------------------------------------------
const stateDir = await tempDir('soak-state-');
const inboxDir = await tempDir('soak-inbox-');
await fs.chmod(inboxDir, 0o700);
// Started as a person starts it: the built command line (`npm run serve` runs the same file after its build check),
// with whatever that command does to its own process (since session 16 on Linux: itself again, in a child with
// glibc's allocator settings). The soak adds no allocator setting of its own. Its memory is read from inside by
// bench/soak-sampler.mjs, loaded through NODE_OPTIONS.
const sampleDir = await tempDir('soak-samples-');
const cliFile = fileURLToPath(new URL('server/cli.js', distRoot));
const wrap = hasCommand('taskset') ? ['taskset', '-c', '0', process.execPath] : [process.execPath];
const launched = spawn(wrap[0], [...wrap.slice(1), cliFile, '--state-dir', stateDir, '--port', '0', '--host', '127.0.0.1'], {
  env: {
    ...process.env,
    SATCHEL_LOG_LEVEL: 'error',
    SATCHEL_AGENT_BASE_URL: agentUrl,
    SATCHEL_AGENT_MODEL: 'fake-model',
    SATCHEL_AGENT_KIND: 'openai',
    SATCHEL_WEBUI_TOKEN: TOKEN,
    SATCHEL_STT_PRELOAD: '0',
    SATCHEL_INBOX_FOLDERS: inboxDir,
    SOAK_SAMPLE_DIR: sampleDir,
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${pathToFileURL(path.join(here, 'soak-sampler.mjs')).href}`.trim(),
  },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const origin = await new Promise((resolve, reject) => {
  let out = '';
  launched.stdout.setEncoding('utf8').on('data', (chunk) => {
    out += chunk;
    const line = out.split('\n').find((l) => l.startsWith(READY_PREFIX));
    if (line) resolve(new URL(line.slice(READY_PREFIX.length)).origin);
  });
  launched.once('exit', (code) => reject(new Error(`the server exited (${code}) before it was ready: ${out}`)));
});
launched.stdout.resume();
/** The server's process: the launched one, or its child running the same command line when it started itself again. */
const childrenOf = (pid) => readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
const relaunched = childrenOf(launched.pid).find((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(cliFile));
const serverPid = relaunched ?? launched.pid;
/** Asks a process running the sampler for 'mem', 'smaps' or 'gc'. */
async function askProcess(pid, what) {
  const out = path.join(sampleDir, `${pid}.json`);
  await fs.rm(out, { force: true });
  await fs.writeFile(path.join(sampleDir, `${pid}.ask`), what);
  process.kill(pid, 'SIGUSR2');
  for (let waited = 0; waited < ASK_TIMEOUT_MS; waited += ASK_POLL_MS) {
    try {
      return JSON.parse(await fs.readFile(out, 'utf8'));
    } catch {
      await sleep(ASK_POLL_MS);
    }
  }
  throw new Error(`process ${pid} did not answer '${what}'`);
}
const server = {
  ask: (what) => askProcess(serverPid, what),
  async stop() {
    const exited = new Promise((r) => launched.once('exit', r));
    launched.kill('SIGTERM');
    await Promise.race([exited, sleep(STOP_TIMEOUT_MS).then(() => launched.kill('SIGKILL'))]);
  },
};

const auth = { Authorization: `Bearer ${TOKEN}` };

async function api(method, pathname, body) {
  const res = await fetch(origin + pathname, { method, headers: { ...auth, ...(body ? { 'Content-Type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${method} ${pathname}: ${res.status} ${text.slice(0, 200)}`);
  return JSON.parse(text);
}
async function upload(sessionId, file) {
  const form = new FormData();
  form.append('session_id', sessionId);
  form.append('file', new Blob([file.bytes], { type: file.type }), file.name);
  const res = await fetch(origin + '/api/upload', { method: 'POST', headers: auth, body: form });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`upload ${file.name}: ${res.status} ${text.slice(0, 200)}`);
  return { kind: 'file', ...JSON.parse(text) };
}
/** A turn: start it, read its frames to the end. */
async function turn(sessionId, message, attachments) {
  const started = await api('POST', '/api/chat/start', { session_id: sessionId, message, attachments });
  const res = await fetch(`${origin}/api/chat/stream?stream_id=${started.stream_id}`, { headers: { ...auth, Accept: 'text/event-stream' } });
  const text = await res.text();
  if (!text.includes('event: done') && !text.includes('"done"')) throw new Error(`turn did not finish: ${text.slice(-300)}`);
}

// ---- sampling ------------------------------------------------------------------------------------------------------
const samples = [];
const sample = async (phase) => {
  const m = await server.ask('mem');
  samples.push({ t: Math.round((performance.now() - t0) / 1000), phase, ...m });
  return m;
};
const t0 = performance.now();
await sleep(START_SETTLE_MS);
const start = await sample('start');
const smapsAtStart = await server.ask('smaps');
const launcherAtStart = relaunched ? await askProcess(launched.pid, 'mem') : undefined;

const counts = { turns: 0, uploads: 0, inbox: 0, searches: 0, mcp: 0, errors: 0 };
const errors = [];
let stop = false;
const deadline = Date.now() + SOAK_MS;

const withMcp = !values['no-mcp'];

async function user(u) {
  const mcp = new Client({ name: `soak-${u}`, version: '1.0.0' });
  if (withMcp) await mcp.connect(new StreamableHTTPClientTransport(new URL(origin + '/mcp'), { requestInit: { headers: auth } }));
  let session;
  for (let i = 0; !stop; i++) {
    try {
      if (i % TURNS_PER_SESSION === 0) session = (await api('POST', '/api/session/new', {})).session.session_id;
      const k = u * 100_000 + i;
      const files = [await upload(session, textFile(k)), await upload(session, richFile(k))];
      counts.uploads += 2;
      await turn(session, `Round ${i} of user ${u}: what do these files say about ${WORDS[k % WORDS.length]}?`, files);
      counts.turns++;
      await api('GET', `/api/search?q=${encodeURIComponent(WORDS[(k * 5) % WORDS.length])}`);
      counts.searches++;
      if (withMcp) {
        await mcp.callTool({ name: 'list_sessions', arguments: {} });
        await mcp.callTool({ name: 'read_session', arguments: { session_id: session } });
        await mcp.callTool({ name: 'read_attachment', arguments: { session_id: session, name: files[1].filename } });
        await mcp.callTool({ name: 'search', arguments: { query: WORDS[(k * 3) % WORDS.length] } });
        counts.mcp += 4;
      }
      await api('GET', `/api/session?session_id=${session}`);
    } catch (err) {
      counts.errors++;
      if (errors.length < 10) errors.push(String(err?.message ?? err).slice(0, 300));
      await sleep(1000);
    }
  }
  if (withMcp) await mcp.close();
}

async function inbox() {
  for (let i = 0; !stop; i++) {
    const f = i % 3 === 0 ? richFile(i) : textFile(900_000 + i);
    const name = `${i}-${f.name}`;
    await fs.writeFile(path.join(inboxDir, `.${name}.tmp`), f.bytes);
    await fs.rename(path.join(inboxDir, `.${name}.tmp`), path.join(inboxDir, name));
    counts.inbox++;
    await sleep(2000);
  }
}

const sampler = (async () => {
  while (!stop) {
    await sleep(SAMPLE_MS);
    await sample('soak');
  }
})();
const clock = (async () => {
  while (Date.now() < deadline) await sleep(1000);
  stop = true;
})();
await Promise.all([clock, sampler, inbox(), ...Array.from({ length: USERS }, (_, u) => user(u))]);
const peak = Math.max(...samples.map((s) => s.rss));
const peakWithChildren = Math.max(...samples.map((s) => s.rss + s.childRss));
const mostChildren = Math.max(...samples.map((s) => s.children));
const endOfSoak = await sample('end');
const idleUntil = Date.now() + IDLE_MS;
while (Date.now() < idleUntil) {
  await sleep(Math.min(SAMPLE_MS, idleUntil - Date.now()));
  await sample('idle');
}
const idle = samples.at(-1);
const smaps = await server.ask('smaps');
if (values['heap-snapshot']) await fs.copyFile((await server.ask('heap')).file, values['heap-snapshot']);
const launcherAtIdle = relaunched ? await askProcess(launched.pid, 'mem') : undefined;
await server.ask('gc');
const gc = await sample('after-gc');
// V8 flushes a function's bytecode once it has gone unexecuted through BYTECODE_OLD_AGE full collections
// (--bytecode-old-age, 5 in Node 20): what more collections in a row would give back of the code a day loaded.
for (let i = 1; i < BYTECODE_OLD_AGE + 1; i++) await server.ask('gc');
const aged = await sample('after-gcs');
// And with baseline code flushed too (V8 flushes only bytecode by default; code Sparkplug compiled stays).
await server.ask('flushBaseline');
for (let i = 0; i < BYTECODE_OLD_AGE + 1; i++) await server.ask('gc');
const flushed = await sample('after-flush');
await server.stop();
agent.close();

const f = (x) => x.toFixed(1);
const codeOf = (s) => `${f(s.code)} / ${f(s.bytecode)} / ${f(s.sources)}`;
const row = (name, s) => `| ${name} | ${f(s.rss)} | ${f(s.anon)} | ${f(s.file)} | ${f(s.heapUsed)} / ${f(s.heapTotal)} | ${f(s.external)} | ${f(s.arrayBuffers)} | ${s.fds} | ${s.threads} | ${s.children} / ${f(s.childRss)} |`;
console.log(`${machine()}; ${values.minutes} min soak, ${USERS} users, ${values['idle-minutes']} min idle`);
console.log(`work: ${counts.turns} turns, ${counts.uploads} uploads, ${counts.inbox} Inbox files, ${counts.searches} searches, ${counts.mcp} MCP calls, ${counts.errors} errors (agent requests ${agentRequests})`);
for (const e of errors) console.log(`  error: ${e}`);
console.log('| moment | RSS MiB | RssAnon | RssFile | heap used / total | external | arrayBuffers | fds | threads | child processes / their RSS |');
console.log('|---|---|---|---|---|---|---|---|---|---|');
console.log(row('idle after start', start));
console.log(`| peak RSS during the soak | ${f(peak)} | | | | | | | | at most ${mostChildren}; server + children at most ${f(peakWithChildren)} |`);
console.log(row('end of the soak', endOfSoak));
console.log(row(`after ${values['idle-minutes']} min idle`, idle));
console.log(row('then a forced full GC (not the app\'s)', gc));
console.log(row(`then ${BYTECODE_OLD_AGE + 1} forced full GCs in all (unexecuted bytecode flushed)`, aged));
console.log(row(`then --flush-baseline-code and ${BYTECODE_OLD_AGE + 1} more`, flushed));
console.log(`the heap's code (MiB: compiled code / bytecode / script sources): start ${codeOf(start)}; after idle ${codeOf(idle)}; after the GCs ${codeOf(aged)}; after the baseline flush ${codeOf(flushed)}`);
const spacesOf = (x) => Object.entries(x.spaces).map(([k, [res, used]]) => `${k} ${res}/${used}`).join(', ');
console.log(`the heap's spaces (MiB resident / used): start ${spacesOf(start)}; after idle ${spacesOf(idle)}`);
const { files: filesAtIdle, ...byMapping } = smaps;
console.log(`resident after idle by mapping (MiB): ${JSON.stringify(byMapping)}`);
// The files whose resident pages grew from the start to after idle: libraries loaded or data touched on first use.
const grown = Object.entries(filesAtIdle)
  .map(([file, mib]) => [file, mib - (smapsAtStart.files[file] ?? 0)])
  .filter(([, d]) => d >= 0.1)
  .sort((a, b) => b[1] - a[1]);
console.log(`files resident after idle beyond the start (MiB): ${grown.map(([file, d]) => `${path.basename(file)} +${d.toFixed(1)}`).join(', ') || 'none'}`);
console.log(launcherAtStart ? `the launcher waiting for the server (pid ${launched.pid}, server ${serverPid}): RSS ${f(launcherAtStart.rss)} MiB (RssAnon ${f(launcherAtStart.anon)}) at start, ${f(launcherAtIdle.rss)} (RssAnon ${f(launcherAtIdle.anon)}) after idle` : 'the server runs in the launched process itself');
// The children are counted in: an idle server has none, and a child still up would be the server's memory too.
const ratio = (idle.rss + idle.childRss) / (start.rss + start.childRss);
console.log(`idle RSS after the day ÷ idle RSS after start: **${ratio.toFixed(2)}** (target ≤ ${TARGET}: ${ratio <= TARGET ? 'meets' : 'MISSES'})`);
if (values.json) await fs.writeFile(values.json, JSON.stringify({ counts, samples, ratio }, null, 1));
await fs.rm(stateDir, { recursive: true, force: true });
await fs.rm(inboxDir, { recursive: true, force: true });
await fs.rm(sampleDir, { recursive: true, force: true });
