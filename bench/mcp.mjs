// MCP endpoint: the time an agent waits to list a session with 1,000 attachments and to search 100 MB of
// workspace text, through the SDK's own client against the built server (pinned to core 0), beside the same
// data read the plain way in the same run: GET /api/session for the listing, `grep -r -c -F -i` for search.
//   npm run build && node bench/mcp.mjs [--runs 7] [--attachments 1000] [--files 1000] [--kib 100]
// The data is built through the real server (POST /api/upload) except the workspace text, which a person's
// tools would write: it goes straight to disk. Everything is warm in the page cache for both sides.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { machine, median, startChild, tempDir } from './lib.mjs';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '7' },
    attachments: { type: 'string', default: '1000' },
    files: { type: 'string', default: '1000' },
    kib: { type: 'string', default: '100' },
  },
});
const RUNS = Number(values.runs);
const ATTACHMENTS = Number(values.attachments);
const FILES = Number(values.files);
const FILE_BYTES = Number(values.kib) * 1024;
/** Folders the workspace text is spread over (a listing is bounded at 1,000 entries per folder). */
const FOLDERS = 10;
/** Uploads in flight at once while building the session. */
const UPLOAD_CONCURRENCY = 8;
const TOKEN = 'bench-token';
/** A word no generated text contains, placed in NEEDLE_FILES (folder, index within it). */
const NEEDLE = 'quokkaneedle';
const NEEDLE_FILES = [
  [0, 0],
  [1, 50],
  [2, 99],
  [5, 0],
  [9, 99],
];
const WORDS = 'the a of river stone window paper green market slowly under seven lamp harbour quiet number letter'.split(' ');

const satchelScript = (stateDir, workspace) => `
  import { startServer } from ${JSON.stringify(new URL('../dist/server/index.js', import.meta.url).href)};
  const s = await startServer({ host: '127.0.0.1', port: 0, stateDir: ${JSON.stringify(stateDir)}, token: '${TOKEN}', maxUploadBytes: 1024 * 1024 * 1024, defaultWorkspace: ${JSON.stringify(workspace)}, preloadSpeech: false });
  console.log(JSON.stringify({ origin: s.origin }));
`;

const auth = { Authorization: `Bearer ${TOKEN}` };

async function api(origin, method, pathname, body) {
  const res = await fetch(origin + pathname, { method, headers: { ...auth, ...(body ? { 'Content-Type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${method} ${pathname}: ${res.status} ${text.slice(0, 200)}`);
  return JSON.parse(text);
}

async function newSession(origin) {
  return (await api(origin, 'POST', '/api/session/new', {})).session;
}

async function uploadMany(origin, sessionId, n) {
  let next = 0;
  const worker = async () => {
    while (next < n) {
      const i = next++;
      const form = new FormData();
      form.append('session_id', sessionId);
      form.append('file', new Blob([`note ${i}: ${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]}\n`], { type: 'text/plain' }), `note-${String(i).padStart(4, '0')}.txt`);
      const res = await fetch(origin + '/api/upload', { method: 'POST', headers: auth, body: form });
      if (res.status !== 200) throw new Error(`upload ${i}: ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: UPLOAD_CONCURRENCY }, worker));
}

/** FILES text files of FILE_BYTES in FOLDERS folders; NEEDLE once in each of NEEDLE_FILES. Returns the paths in order. */
async function writeCorpus(root) {
  const perFolder = Math.ceil(FILES / FOLDERS);
  const files = [];
  let line = '';
  for (let i = 0; line.length < 200; i++) line += WORDS[(i * 5 + 3) % WORDS.length] + ' ';
  const block = Buffer.from((line.trimEnd() + '\n').repeat(Math.ceil(FILE_BYTES / (line.length + 1))).slice(0, FILE_BYTES));
  for (let d = 0; d < FOLDERS; d++) {
    const dir = path.join(root, `folder-${d}`);
    await fs.mkdir(dir, { recursive: true });
    for (let f = 0; f < perFolder && files.length < FILES; f++) {
      const file = path.join(dir, `text-${String(f).padStart(3, '0')}.txt`);
      let data = block;
      if (NEEDLE_FILES.some(([nd, nf]) => nd === d && nf === f)) {
        data = Buffer.from(block);
        data.write(` ${NEEDLE} `, Math.floor(FILE_BYTES / 2));
      }
      await fs.writeFile(file, data);
      files.push(file);
    }
  }
  return files;
}

async function time(fn) {
  const t = process.hrtime.bigint();
  const out = await fn();
  return { ms: Number(process.hrtime.bigint() - t) / 1e6, out };
}

/** Median of RUNS timed calls, after one untimed warm-up; `check` validates every answer. */
async function measure(fn, check) {
  check(await fn());
  const ms = [];
  for (let i = 0; i < RUNS; i++) {
    const r = await time(fn);
    check(r.out);
    ms.push(r.ms);
  }
  return median(ms);
}

function toolJson(result) {
  if (result.isError) throw new Error(`tool error: ${JSON.stringify(result.content)}`);
  return JSON.parse(result.content[0].text);
}

function grep(args) {
  const r = spawnSync('grep', args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0 && r.status !== 1) throw new Error(`grep exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}

const root = await tempDir('satchel-bench-mcp-');
const stateDir = path.join(root, 'state');
const workspace = path.join(root, 'workspace');
await fs.mkdir(stateDir);
await fs.mkdir(workspace);
const { child, info } = await startChild(satchelScript(stateDir, workspace));
try {
  const built = process.hrtime.bigint();
  const listed = await newSession(info.origin);
  await uploadMany(info.origin, listed.session_id, ATTACHMENTS);
  // Search runs on a second session of the same workspace, so it reads the workspace text (not the 1,000 notes).
  const searched = await newSession(info.origin);
  const corpusDir = path.join(searched.workspace, 'corpus');
  const files = await writeCorpus(corpusDir);
  const corpusBytes = files.length * FILE_BYTES;
  console.log(`built: ${ATTACHMENTS} uploads and ${files.length} × ${FILE_BYTES / 1024} KiB (${(corpusBytes / 1e6).toFixed(1)} MB) in ${(Number(process.hrtime.bigint() - built) / 1e9).toFixed(1)} s`);

  const client = new Client({ name: 'satchel-bench', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(info.origin + '/mcp'), { requestInit: { headers: auth } }));

  const readSession = await measure(
    () => client.callTool({ name: 'read_session', arguments: { session_id: listed.session_id } }),
    (r) => {
      const n = toolJson(r).attachments.length;
      if (n !== ATTACHMENTS) throw new Error(`read_session listed ${n} attachments`);
    },
  );
  const readResource = await measure(
    () => client.readResource({ uri: `satchel://session/${listed.session_id}` }),
    (r) => {
      const n = JSON.parse(r.contents[0].text).attachments.length;
      if (n !== ATTACHMENTS) throw new Error(`resource read listed ${n} attachments`);
    },
  );
  const listSessions = await measure(
    () => client.callTool({ name: 'list_sessions', arguments: {} }),
    (r) => {
      const row = toolJson(r).find((s) => s.session_id === listed.session_id);
      if (row?.attachment_count !== ATTACHMENTS) throw new Error(`list_sessions: ${JSON.stringify(row)}`);
    },
  );
  const getSession = await measure(
    () => api(info.origin, 'GET', `/api/session?session_id=${listed.session_id}`),
    (r) => {
      if (r.session.attachments.length !== ATTACHMENTS) throw new Error(`GET /api/session listed ${r.session.attachments.length}`);
    },
  );

  let lastSearch;
  const search = await measure(
    () => client.callTool({ name: 'search', arguments: { session_id: searched.session_id, query: NEEDLE } }),
    (r) => {
      lastSearch = toolJson(r);
      if (lastSearch.results.length === 0) throw new Error('search found nothing');
    },
  );
  const expectAll = String(NEEDLE_FILES.length);
  let grepAllCount = '';
  const grepAll = await measure(
    async () => grep(['-r', '-c', '-F', '-i', NEEDLE, corpusDir]),
    (out) => {
      grepAllCount = String(out.split('\n').filter((l) => /:[1-9]\d*$/.test(l)).length);
      if (grepAllCount !== expectAll) throw new Error(`grep -r found the needle in ${grepAllCount} files`);
    },
  );
  // Like for like: grep over exactly the files search got to (breadth first, by name: the corpus order).
  const sameFiles = files.slice(0, lastSearch.files_searched);
  const grepSame = await measure(
    async () => grep(['-c', '-F', '-i', NEEDLE, ...sameFiles]),
    (out) => {
      const n = out.split('\n').filter((l) => /:[1-9]\d*$/.test(l)).length;
      if (n !== lastSearch.results.length) throw new Error(`grep over the searched files: ${n}, search: ${lastSearch.results.length}`);
    },
  );
  await client.close();

  const f = (x) => x.toFixed(1);
  console.log(`\nmachine: ${machine()}; medians of ${RUNS} runs after one warm-up\n`);
  console.log('| listing a session with', ATTACHMENTS, 'attachments | median ms |');
  console.log('| --- | --- |');
  console.log(`| MCP \`read_session\` (tool call, all ${ATTACHMENTS} attachments) | ${f(readSession)} |`);
  console.log(`| MCP \`resources/read satchel://session/{id}\` | ${f(readResource)} |`);
  console.log(`| MCP \`list_sessions\` (counts only) | ${f(listSessions)} |`);
  console.log(`| reference: \`GET /api/session\` (JSON API) | ${f(getSession)} |`);
  console.log(`\n| searching ${files.length} × ${FILE_BYTES / 1024} KiB = ${(corpusBytes / 1e6).toFixed(1)} MB of workspace text | median ms | files | bytes | needle files found |`);
  console.log('| --- | --- | --- | --- | --- |');
  console.log(`| MCP \`search\` | ${f(search)} | ${lastSearch.files_searched} | ${lastSearch.bytes_searched} | ${lastSearch.results.length} of ${NEEDLE_FILES.length} (complete: ${lastSearch.complete}) |`);
  console.log(`| reference: \`grep -r -c -F -i\` over all of it | ${f(grepAll)} | ${files.length} | ${corpusBytes} | ${grepAllCount} of ${NEEDLE_FILES.length} |`);
  console.log(`| reference: \`grep -c -F -i\` over the files search read | ${f(grepSame)} | ${sameFiles.length} | ${sameFiles.length * FILE_BYTES} | ${lastSearch.results.length} |`);
  console.log(`\nsearch MB/s: ${f(lastSearch.bytes_searched / 1e6 / (search / 1000))}; grep over the same files: ${f((sameFiles.length * FILE_BYTES) / 1e6 / (grepSame / 1000))}`);
} finally {
  child.kill('SIGTERM');
  await fs.rm(root, { recursive: true, force: true });
}
