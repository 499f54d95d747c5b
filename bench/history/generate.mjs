// The realistic history issue 37's benches run on, built through Satchel's own import (POST /api/session/import
// of a running server, the export format server/export/read-export.ts reads), never by writing the database:
// 20,000 or 200,000 messages of real README English with code blocks (corpus.md, build-corpus.mjs), a year of
// conversations: one of 10,000 messages, one of 1,000, one of 10 (and at 200k one of 9,400) among many small
// ones, and a few text attachments (one per ~1,440 messages, as the 139 at 200k). Seeded: the same seed
// and size give the same history, byte for byte, on every machine.
//
// Usage: npm run build && node bench/history/generate.mjs --state-dir DIR [--messages 20000|200000] [--seed N]
//        node bench/history/generate.mjs --url http://127.0.0.1:PORT --token TOKEN [--messages N] [--seed N]
// With --state-dir it starts this build's server (dist/) on that folder itself and stops it after; with --url it
// imports into a server already running. It writes DIR/history.json (or prints it) naming the long conversations.
// As a module: `await buildHistory({ url, token, messages, seed })` resolves that manifest.
import fs from 'node:fs';
import path from 'node:path';
import yazl from 'yazl';
import { arg } from '../lib.mjs';

const HERE = path.dirname(new URL(import.meta.url).pathname);
/** The sizes the issue names. */
export const SIZES = [20_000, 200_000];
/** The history averages 100 messages a conversation (2,000 for 200,000). */
const MESSAGES_PER_CONVERSATION = 100;
/** The long conversations the issue measures, at every size; the store's cap is 10,000 (settings/caps.ts). */
const LONG = [10_000, 1_000, 10];
/** At 200k, also one just under the cap (the 9,400). */
const LONG_200K = 9_400;
/** One text attachment per this many messages (139 at 200,000). */
const MESSAGES_PER_ATTACHMENT = 1_440;
/** A person's message: 40-600 characters; an agent's answer 100-1,700 and up to the end of its last block: ~750 bytes a message on average, as the 143 MiB for 200,000. */
const USER_CHARS = [40, 600];
const REPLY_CHARS = [100, 1_700];
/** An attached note: 2-20 KB of README. */
const ATTACHMENT_CHARS = [2_000, 20_000];
/** The history spans a year, ending here (a fixed time: reproducible). */
const END_SECONDS = Date.UTC(2026, 10, 1) / 1000;
const YEAR_SECONDS = 365 * 24 * 3600;

/** mulberry32: a small seeded generator, the same numbers on every machine. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The corpus as blocks: a fenced code block whole, otherwise a paragraph. */
function blocks(text) {
  const out = [];
  let cur = [];
  let fenced = false;
  const flush = () => {
    if (cur.length) out.push(cur.join('\n'));
    cur = [];
  };
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) {
      if (!fenced) flush();
      cur.push(line);
      fenced = !fenced;
      if (!fenced) flush();
    } else if (!fenced && line.trim() === '') flush();
    else cur.push(line);
  }
  flush();
  return out;
}

class Writer {
  constructor(seed) {
    this.rand = prng(seed);
    this.blocks = blocks(fs.readFileSync(path.join(HERE, 'corpus.md'), 'utf8'));
    this.prose = this.blocks.map((b, i) => i).filter((i) => !this.blocks[i].startsWith('```') && !this.blocks[i].startsWith('#') && this.blocks[i].length >= 40);
  }
  between([lo, hi]) {
    return lo + Math.floor(this.rand() * (hi - lo));
  }
  /** A question: one paragraph of prose (cut at a word near the target length). */
  question() {
    const text = this.blocks[this.prose[Math.floor(this.rand() * this.prose.length)]];
    const want = this.between(USER_CHARS);
    if (text.length <= want) return text;
    const cut = text.lastIndexOf(' ', want);
    return text.slice(0, cut > 20 ? cut : want);
  }
  /** An answer or a note: consecutive blocks of one README from a random start (prose, lists and code). */
  run(range) {
    const want = this.between(range);
    let i = Math.floor(this.rand() * this.blocks.length);
    let out = '';
    while (out.length < want) {
      out += (out ? '\n\n' : '') + this.blocks[i];
      i = (i + 1) % this.blocks.length;
    }
    return out;
  }
}

/** Conversation lengths: the long ones first, then small ones (1-2 × a mean, skewed short) summing to the rest. */
function lengths(messages, rand) {
  const long = messages >= 200_000 ? [...LONG.slice(0, 1), LONG_200K, ...LONG.slice(1)] : LONG;
  const count = Math.max(long.length + 1, Math.round(messages / MESSAGES_PER_CONVERSATION));
  const rest = messages - long.reduce((a, b) => a + b, 0);
  if (rest < count - long.length) throw new Error(`--messages ${messages} is too few for the long conversations`);
  const weights = Array.from({ length: count - long.length }, () => 0.05 + rand() ** 2);
  const sum = weights.reduce((a, b) => a + b, 0);
  const small = weights.map((w) => Math.max(1, Math.floor((rest * w) / sum)));
  let left = rest - small.reduce((a, b) => a + b, 0);
  for (let i = 0; left !== 0; i = (i + 1) % small.length) {
    if (left > 0) (small[i]++, left--);
    else if (small[i] > 1) (small[i]--, left++);
  }
  return [...long, ...small];
}

/** One conversation's export document (projections/export.ts's shape) and its attachment, if any. */
function conversation(w, index, count, start, attach) {
  const gap = Math.max(1, Math.floor(Math.min(3_600 * 24 * 30, YEAR_SECONDS / 4) / Math.max(1, count)));
  const note = attach ? { name: `notes-${index}.md`, text: w.run(ATTACHMENT_CHARS) } : undefined;
  const ref = note && { filename: note.name, path: `attachments/${note.name}`, size: Buffer.byteLength(note.text), mime: 'text/markdown', is_image: false, kind: 'file' };
  const messages = [];
  for (let i = 0; i < count; i++) {
    const timestamp = start + i * gap;
    if (i % 2 === 0) messages.push({ role: 'user', content: w.question(), timestamp, attachments: i === 0 && ref ? [ref] : [] });
    else messages.push({ role: 'assistant', content: w.run(REPLY_CHARS), timestamp });
  }
  const title = w.question().slice(0, 60).replace(/\s+\S*$/, '') || `Conversation ${index}`;
  const at = (s) => new Date(s * 1000).toISOString();
  const doc = {
    satchel_export: 1,
    title,
    created_at: at(start),
    updated_at: at(start + count * gap),
    messages,
    attachments: ref ? [{ path: ref.path }] : [],
  };
  return { doc, note };
}

/** The bytes POSTed: a lone .json, or a .zip with conversation.json and attachments/ when it has a note. */
async function upload({ doc, note }) {
  const json = JSON.stringify(doc);
  if (!note) return { name: 'conversation.json', type: 'application/json', bytes: Buffer.from(json) };
  const zip = new yazl.ZipFile();
  const when = new Date('2000-01-01T00:00:00Z');
  zip.addBuffer(Buffer.from(json), 'conversation.json', { mtime: when });
  zip.addBuffer(Buffer.from(note.text), `attachments/${note.name}`, { mtime: when });
  zip.end();
  const chunks = [];
  for await (const c of zip.outputStream) chunks.push(c);
  return { name: 'conversation.zip', type: 'application/zip', bytes: Buffer.concat(chunks) };
}

async function post(url, token, file) {
  const form = new FormData();
  form.append('file', new Blob([file.bytes], { type: file.type }), file.name);
  const res = await fetch(`${url}/api/session/import`, { method: 'POST', headers: { Authorization: `Bearer ${token}` }, body: form });
  const body = await res.json();
  if (res.status !== 200) throw new Error(`import refused (${res.status}): ${JSON.stringify(body).slice(0, 300)}`);
  return body.session.session_id;
}

/**
 * Import the history into the server at `url`. Resolves the manifest: sizes, the ids of the long conversations
 * by length, the attachment count, the bytes of text and how long the import took.
 */
export async function buildHistory({ url, token, messages = 20_000, seed = 37, log = () => {} }) {
  const w = new Writer(seed);
  const counts = lengths(messages, w.rand);
  const attachEvery = Math.max(1, Math.round(counts.length / Math.max(1, Math.round(messages / MESSAGES_PER_ATTACHMENT))));
  const started = performance.now();
  const manifest = { seed, messages, conversations: counts.length, long: {}, attachments: 0, text_bytes: 0, ids: [] };
  for (let c = 0; c < counts.length; c++) {
    const start = END_SECONDS - YEAR_SECONDS + Math.floor((c / counts.length) * (YEAR_SECONDS - 3_600 * 24 * 31));
    const attach = c >= LONG.length + 1 && c % attachEvery === 0;
    const made = conversation(w, c, counts[c], start, attach);
    for (const m of made.doc.messages) manifest.text_bytes += Buffer.byteLength(m.content);
    const id = await post(url, token, await upload(made));
    manifest.ids.push(id);
    if (c < LONG.length + (messages >= 200_000 ? 1 : 0)) manifest.long[counts[c]] = id;
    if (attach) manifest.attachments++;
    if (c % 100 === 0) log(`${c}/${counts.length} conversations, ${((performance.now() - started) / 1000).toFixed(0)} s`);
  }
  manifest.import_seconds = Number(((performance.now() - started) / 1000).toFixed(1));
  return manifest;
}

async function main() {
  const messages = Number(arg('--messages', 20_000));
  const seed = Number(arg('--seed', 37));
  const stateDir = arg('--state-dir', undefined);
  let url = arg('--url', undefined);
  let token = arg('--token', undefined);
  let stop = async () => {};
  if (!url) {
    if (!stateDir) throw new Error('give --state-dir DIR (a server is started on it) or --url and --token of a running one');
    fs.mkdirSync(stateDir, { recursive: true });
    const { startServer } = await import(path.resolve(HERE, '..', '..', 'dist', 'server', 'index.js'));
    token = 'h'.repeat(43);
    // The import's cap is the upload cap: the 10,000-message conversation's JSON is ~8 MB.
    const s = await startServer({ host: '127.0.0.1', port: 0, stateDir: path.resolve(stateDir), token, maxUploadBytes: 256 << 20, preloadSpeech: false });
    url = `http://127.0.0.1:${s.port}`;
    stop = () => s.close();
  }
  const manifest = await buildHistory({ url, token, messages, seed, log: (m) => console.error(m) });
  await stop();
  const text = JSON.stringify(manifest, null, 1);
  if (stateDir) fs.writeFileSync(path.join(stateDir, 'history.json'), text);
  console.log(JSON.stringify({ ...manifest, ids: `${manifest.ids.length} ids` }));
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
