// JSON requests per second with keep-alive: Satchel's server beside a bare Node `http` server answering the
// same bytes, each pinned to core 0 with wrk on core 1, in one run. Needs `npm run build` and Debian's wrk.
//   node bench/http.mjs [--runs 3] [--seconds 5]
import { parseArgs } from 'node:util';
import { machine, median, startChild, tempDir, wrk } from './lib.mjs';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '3' }, seconds: { type: 'string', default: '5' } } });
const runs = Number(values.runs);
const seconds = Number(values.seconds);
const TOKEN = 'bench-token';

const satchelScript = (stateDir) => `
  import { startServer } from ${JSON.stringify(new URL('../dist/server/index.js', import.meta.url).href)};
  const s = await startServer({ host: '127.0.0.1', port: 0, stateDir: ${JSON.stringify(stateDir)}, token: '${TOKEN}', maxUploadBytes: 100 * 1024 * 1024 });
  const res = await fetch(s.origin + '/api/session/new', { method: 'POST', body: '{}', headers: { Authorization: 'Bearer ${TOKEN}' } });
  const id = (await res.json()).session.session_id;
  await fetch(s.origin + '/api/session/message', { method: 'POST', body: JSON.stringify({ session_id: id, text: 'The quick brown fox jumps over the lazy dog. '.repeat(60) }), headers: { Authorization: 'Bearer ${TOKEN}' } });
  const big = await (await fetch(s.origin + '/api/session?session_id=' + id, { headers: { Authorization: 'Bearer ${TOKEN}' } })).text();
  console.log(JSON.stringify({ port: s.port, id, bigBytes: Buffer.byteLength(big) }));
`;

// The floor: what plain Node does for the same responses (same JSON bytes, gzip level 4 for the big one).
const bareScript = (bigBytes) => `
  import http from 'node:http';
  import zlib from 'node:zlib';
  const small = Buffer.from('{"ok":true}');
  const big = Buffer.from(JSON.stringify({ session: { text: 'x'.repeat(${bigBytes}) } }, null, 2)).subarray(0, ${bigBytes});
  const s = http.createServer((req, res) => {
    if (req.url.startsWith('/big')) {
      zlib.gzip(big, { level: 4 }, (err, z) => { res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip', 'Content-Length': z.length }); res.end(z); });
    } else { res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': small.length }); res.end(small); }
  });
  s.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: s.address().port })));
`;

const stateDir = await tempDir('satchel-bench-http-');
const satchel = await startChild(satchelScript(stateDir), { core: 0 });
const bare = await startChild(bareScript(satchel.info.bigBytes), { core: 0 });
const auth = { Authorization: `Bearer ${TOKEN}` };
const gz = { ...auth, 'Accept-Encoding': 'gzip' };
const rows = [];
try {
  const cases = [
    ['small JSON GET (/api/health/agent, 11 B)', `http://127.0.0.1:${satchel.info.port}/api/health/agent`, {}, `http://127.0.0.1:${bare.info.port}/small`],
    [`gzip-sized JSON GET (/api/session, ${satchel.info.bigBytes} B → gzip)`, `http://127.0.0.1:${satchel.info.port}/api/session?session_id=${satchel.info.id}`, gz, `http://127.0.0.1:${bare.info.port}/big`],
  ];
  for (const [name, url, headers, bareUrl] of cases) {
    const ours = [];
    const floor = [];
    for (let i = 0; i < runs; i++) {
      ours.push(wrk(url, { seconds, headers }));
      floor.push(wrk(bareUrl, { seconds, headers: { 'Accept-Encoding': 'gzip' } }));
    }
    rows.push({ name, satchel: median(ours), bare: median(floor) });
  }
} finally {
  satchel.child.kill();
  bare.child.kill();
}
console.log(`# HTTP requests/s — ${machine()}; wrk -t1 -c16 -d${seconds}s, ${runs} runs, medians; server on 1 core`);
console.log('| case | Satchel req/s | bare Node req/s | ratio |');
console.log('|---|---|---|---|');
for (const r of rows) console.log(`| ${r.name} | ${Math.round(r.satchel)} | ${Math.round(r.bare)} | ${(r.satchel / r.bare).toFixed(2)} |`);
