// MCP read receipts (issue 25): what one receipt costs the read that records it. `--reads` receipts into one
// conversation through this build's SessionStore (dist/), every other one a read of the same file (coalesced:
// an UPDATE) and the others of a new file each (an INSERT and the trim to MAX_RECEIPTS_PER_SESSION), each its
// own transaction as an MCP read makes it; then the whole list as GET /api/session/receipts reads it.
// Usage: npm run build && node bench/receipts.mjs [--reads 2000]
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { arg, median, pct } from './lib.mjs';

const READS = Number(arg('--reads', 2000));
const { SessionStore } = await import(new URL('../dist/server/store/sessions.js', import.meta.url).href);

const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-receipts-bench-'));
const store = new SessionStore(dir);
await store.load();
try {
  const { session_id: id } = await store.create({ workspace: dir, profile: 'default' });
  const times = [];
  for (let i = 0; i < READS; i++) {
    const t = performance.now();
    await store.recordReceipt(id, { client: 'Claude Code', kind: 'attachment', name: i % 2 ? 'same.txt' : `file-${i}.txt` });
    times.push(performance.now() - t);
  }
  const t = performance.now();
  const kept = await store.receipts(id);
  const listMs = performance.now() - t;
  console.log(`record one receipt (${READS}): median ${median(times).toFixed(2)} ms, p95 ${pct(times, 95).toFixed(2)} ms; list of ${kept.length}: ${listMs.toFixed(2)} ms`);
} finally {
  await store.close();
  await fs.rm(dir, { recursive: true, force: true });
}
