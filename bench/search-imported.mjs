// Issue 33 finding 4, the worst case: 51 conversations each with one 4 MiB row of `0 0 0 …` (an import's size), then the real CLI server: search `0`
// (time, /health during it, a save during it), and SIGTERM while a search runs (time to exit).
// Usage: npm run build && node bench/search-imported.mjs [DIST_DIR, default dist]
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
const dist = path.resolve(process.argv[2] ?? 'dist');
const state = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-huge51-'));
const { SessionStore } = await import(path.join(dist, 'server/store/sessions.js'));
const store = new SessionStore(state);
await store.load();
const text = '0 '.repeat(2 * 1024 * 1024);
let t = performance.now();
for (let i = 0; i < 51; i++) {
  const now = new Date().toISOString();
  await store.insert({ session_id: store.freshId(), title: `Imported ${i}`, workspace: '/w', profile: 'default', created_at: now, updated_at: now, messages: [{ role: 'user', content: text, timestamp: 1 }], attachments: [] });
}
await store.close();
console.log(`stored 51 rows of 4 MiB in ${((performance.now() - t) / 1000).toFixed(1)} s`);
const child = spawn(process.execPath, [path.join(dist, 'server/cli.js'), '--state-dir', state, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, SATCHEL_LOG_LEVEL: 'error' } });
const url = await new Promise((resolve) => child.stdout.on('data', (d) => { const m = /running at (\S+)/.exec(String(d)); if (m) resolve(m[1]); }));
const u = new URL(url);
const token = u.searchParams.get('token');
const base = u.origin;
const headers = { Authorization: `Bearer ${token}`, Origin: base };
const get = async (p) => { const s = performance.now(); const r = await fetch(base + p, { headers }); const b = await r.json(); return { ms: performance.now() - s, status: r.status, body: b }; };
const post = async (p, body) => { const s = performance.now(); const r = await fetch(base + p, { method: 'POST', headers: { ...headers, 'Content-Type': 'application/json' }, body: JSON.stringify(body) }); await r.text(); return { ms: performance.now() - s, status: r.status }; };
const { session } = (await (await fetch(base + '/api/session/new', { method: 'POST', headers: { ...headers, 'Content-Type': 'application/json' }, body: '{}' })).json());
for (let i = 0; i < 3; i++) {
  const search = get('/api/search?q=0&limit=20');
  await new Promise((r) => setTimeout(r, 5));
  const [h, w] = [await get('/health'), await post('/api/session/message', { session_id: session.session_id, text: 'saved while searching' })];
  const s = await search;
  console.log(`search ${s.status} ${s.ms.toFixed(0)} ms, ${s.body.results?.length} results, note: ${s.body.note ?? '-'}; /health ${h.ms.toFixed(0)} ms; a save ${w.status} ${w.ms.toFixed(0)} ms`);
}
const during = fetch(base + '/api/search?q=0&limit=50', { headers }).catch(() => undefined);
await new Promise((r) => setTimeout(r, 20));
t = performance.now();
child.kill('SIGTERM');
const code = await new Promise((resolve) => child.on('exit', (c, sig) => resolve(c ?? sig)));
console.log(`SIGTERM mid-search: exited ${code} after ${(performance.now() - t).toFixed(0)} ms`);
await during;
fs.rmSync(state, { recursive: true, force: true });
