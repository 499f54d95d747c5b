// A streaming reply's text kept as it goes (issue 33, finding 11): what one batch write costs, beside the floor of
// the write every message already makes (an appended row), in the same run and the same database. A turn makes at
// most 1000 / STREAMED_TEXT_BATCH_MS batch writes a second, plus one per STREAMED_TEXT_BATCH_CHARS of a fast
// stream; the database time per second of streaming is that count times a batch's cost.
// Usage: npm run build && node bench/streamed-text.mjs [--writes 1000] [--batch-chars 2048]
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { arg, median, pct } from './lib.mjs';

const WRITES = Number(arg('--writes', 1000));
/** A batch as a 50 tokens/s stream makes it in 250 ms is ~80 characters; 2 KiB is a fast one's. */
const BATCH_CHARS = Number(arg('--batch-chars', 2048));
const { SessionStore } = await import(new URL('../dist/server/store/sessions.js', import.meta.url).href);
const { STREAMED_TEXT_BATCH_MS, STREAMED_TEXT_BATCH_CHARS } = await import(new URL('../dist/server/agent/streamed-batches.js', import.meta.url).href);

const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-streamed-bench-'));
const store = new SessionStore(dir);
await store.load();
try {
  const { session_id: id } = await store.create({ workspace: dir, profile: 'default' });
  const text = 'word '.repeat(Math.ceil(BATCH_CHARS / 5)).slice(0, BATCH_CHARS);
  const batch = [];
  const append = [];
  // Interleaved, so both meet the same moments of a shared machine.
  for (let i = 0; i < WRITES; i++) {
    let t = performance.now();
    await store.appendStreamedText(id, 'stream', { content: text, reasoning: '' });
    batch.push(performance.now() - t);
    t = performance.now();
    await store.addMessage(id, text, []);
    append.push(performance.now() - t);
  }
  const perSecond = 1000 / STREAMED_TEXT_BATCH_MS;
  const b = median(batch);
  const a = median(append);
  console.log(`batch write (${BATCH_CHARS} chars, ${WRITES}): median ${b.toFixed(3)} ms, p99 ${pct(batch, 99).toFixed(3)} ms`);
  console.log(`floor, a message appended (${WRITES}): median ${a.toFixed(3)} ms, p99 ${pct(append, 99).toFixed(3)} ms; ratio ${(b / a).toFixed(2)}`);
  console.log(`per second of streaming at the time bound (${perSecond} batches): ${(b * perSecond).toFixed(2)} ms of database time; a batch at once every ${STREAMED_TEXT_BATCH_CHARS} chars`);
} finally {
  await store.close();
  await fs.rm(dir, { recursive: true, force: true });
}
