// What looking after the conversation database costs the server (issue 33, finding 10): SQLite's check of the
// live file once after start (PRAGMA quick_check on a read-only connection of its own) and the daily backup
// (SQLite's online backup through the server's connection, BACKUP_PAGES_PER_STEP pages a step, then the copy's
// check). For each: its duration, and the latency of a message append (SessionStore.addMessage, one transaction)
// made while it runs, beside the same appends with nothing else running (the floor) in the same run.
// Usage: node bench/db-care.mjs [--conversations N] [--messages N] [--runs N]  (after `npm run build`).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { arg, median, pct } from './lib.mjs';

const CONVERSATIONS = Number(arg('--conversations', 1_000));
const MESSAGES = Number(arg('--messages', 50));
const RUNS = Number(arg('--runs', 3));
/** Appends measured alone per run (the floor). */
const FLOOR_APPENDS = 200;

const dist = (p) => import(pathToFileURL(path.resolve('dist/server', p)).href);
const { SessionStore } = await dist('store/sessions.js');
const { checkDatabase, listBackups } = await dist('store/db/backup.js');

const words = 'the river ran past stone and paper while an orange fox read the quick notes of a heron'.split(' ');
const sentence = (i, n) => Array.from({ length: n }, (_, k) => words[(i * 7 + k * 13) % words.length]).join(' ');

const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-bench-dbcare-'));
const store = new SessionStore(dir);
await store.load();
const t0 = Date.now();
const sessions = [];
for (let c = 0; c < CONVERSATIONS; c++) {
  const at = new Date(Date.UTC(2026, 0, 1, 0, 0, c)).toISOString();
  sessions.push({
    session_id: c.toString(16).padStart(12, '0'),
    title: `Conversation ${c}`,
    workspace: dir,
    profile: 'default',
    created_at: at,
    updated_at: at,
    messages: Array.from({ length: MESSAGES }, (_, m) => ({ role: m % 2 ? 'assistant' : 'user', content: sentence(c + m, 120 + (m % 5) * 40), timestamp: 1_767_225_600 + m })),
    attachments: [],
  });
  if (sessions.length === 100) await store.insertAll(sessions.splice(0));
}
if (sessions.length) await store.insertAll(sessions.splice(0));
const target = '000000000001';
await store.get(target);
const size = (await fs.stat(store.file)).size + (await fs.stat(`${store.file}-wal`).catch(() => ({ size: 0 }))).size;
console.log(`generated ${CONVERSATIONS} x ${MESSAGES} messages (${(size / 2 ** 20).toFixed(0)} MiB) in ${((Date.now() - t0) / 1000).toFixed(0)} s`);

/** Appends since the conversation was last trimmed: it may hold at most 10,000 messages. */
let appended = 0;
async function append() {
  if (++appended > 9_000) {
    await store.update(target, (s) => void (s.messages = s.messages.slice(0, MESSAGES)));
    appended = 1;
  }
  const t = performance.now();
  await store.addMessage(target, 'a short note', []);
  return performance.now() - t;
}

/** Appends one after another until `work` settles; its duration and the appends' latencies. */
async function during(work) {
  const lat = [];
  let done = false;
  const t = performance.now();
  const running = work().finally(() => (done = true));
  while (!done) lat.push(await append());
  await running;
  return { ms: performance.now() - t, lat };
}

const rows = [];
for (let run = 0; run < RUNS; run++) {
  const floor = [];
  for (let i = 0; i < FLOOR_APPENDS; i++) floor.push(await append());
  const check = await during(async () => {
    const problem = await checkDatabase(store.file);
    if (problem) throw new Error(problem);
  });
  const backup = await during(() => store.backup('daily', new Date(Date.UTC(2026, 1, 1 + run))));
  rows.push({ floor, check, backup });
  console.log(
    `run ${run + 1}: floor append median ${median(floor).toFixed(2)} ms p95 ${pct(floor, 95).toFixed(2)} | check ${check.ms.toFixed(0)} ms, ${check.lat.length} appends median ${median(check.lat).toFixed(2)} p95 ${pct(check.lat, 95).toFixed(2)} max ${Math.max(...check.lat).toFixed(1)} | backup ${backup.ms.toFixed(0)} ms, ${backup.lat.length} appends median ${median(backup.lat).toFixed(2)} p95 ${pct(backup.lat, 95).toFixed(2)} max ${Math.max(...backup.lat).toFixed(1)}`,
  );
}
const all = (f) => rows.flatMap(f);
const floorMed = median(all((r) => r.floor));
console.log(`\nmedians over ${RUNS} runs:`);
console.log(`  append alone:          median ${floorMed.toFixed(2)} ms, p95 ${pct(all((r) => r.floor), 95).toFixed(2)} ms`);
console.log(`  quick_check (live):    ${median(rows.map((r) => r.check.ms)).toFixed(0)} ms; appends meanwhile median ${median(all((r) => r.check.lat)).toFixed(2)} ms (${(median(all((r) => r.check.lat)) / floorMed).toFixed(2)}x), p95 ${pct(all((r) => r.check.lat), 95).toFixed(2)} ms`);
console.log(`  backup + its check:    ${median(rows.map((r) => r.backup.ms)).toFixed(0)} ms; appends meanwhile median ${median(all((r) => r.backup.lat)).toFixed(2)} ms (${(median(all((r) => r.backup.lat)) / floorMed).toFixed(2)}x), p95 ${pct(all((r) => r.backup.lat), 95).toFixed(2)} ms, max ${Math.max(...all((r) => r.backup.lat)).toFixed(1)} ms`);
console.log(`  backups kept: ${(await listBackups(dir)).length}`);
await store.close();
await fs.rm(dir, { recursive: true, force: true });
