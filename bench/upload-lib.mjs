// Shared by bench/upload.mjs and bench/concurrency.mjs: Satchel's built server, "the floor" (the shared tool
// upload-floor.mjs: a bare Node server that pipes each request body to a file, 1 MiB high-water mark) and "the busboy
// floor" (upload-busboy-floor.mjs: the same with busboy parsing the form) as pinned children, a multipart upload client that sends from memory,
// and the server's CPU time from /proc, read between runs (no instrumentation inside the servers).
import fs from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { hasCommand, startChild } from './lib.mjs';

export const TOKEN = 'bench-token';
export const MIB = 1024 * 1024;
// A boundary as Chrome makes it (38 characters; curl's and Firefox's are as long). Its length matters: the parser's
// boundary search skips ahead by up to its length, so a 13-character one costs busboy about twice the CPU per MiB.
const BOUNDARY = '----WebKitFormBoundary7MA4YWxkTrZu0gW';
/** Clock ticks per second of /proc/<pid>/stat's utime and stime (Linux's USER_HZ is 100 on every common build). */
const CLK_TCK = 100;

/** The built server to measure: `--dist <dir>` (a build of another commit) or this checkout's dist/. */
export function distEntry(distDir) {
  return distDir ? `file://${path.resolve(distDir, 'server/index.js')}` : new URL('../dist/server/index.js', import.meta.url).href;
}

/** Satchel's startServer in a child with one session; prints {port, id}. `nodeArgs`: node's (V8's) flags for it. */
export function startSatchel(distDir, stateDir, { core = 0, nodeArgs = [] } = {}) {
  const script = `
    import { startServer } from ${JSON.stringify(distEntry(distDir))};
    const s = await startServer({ host: '127.0.0.1', port: 0, stateDir: ${JSON.stringify(stateDir)}, token: '${TOKEN}', maxUploadBytes: 2048 * 1024 * 1024 });
    const res = await fetch(s.origin + '/api/session/new', { method: 'POST', body: '{}', headers: { Authorization: 'Bearer ${TOKEN}' } });
    console.log(JSON.stringify({ port: s.port, id: (await res.json()).session.session_id }));
  `;
  return startChild(script, { core, nodeArgs, env: { SATCHEL_WEBUI_ATTACHMENT_DIR: '' } });
}

/**
 * The floor: /work/shared/tools/upload-floor.mjs (SATCHEL_UPLOAD_FLOOR names another copy), the plain
 * `pipeline(req, fs.createWriteStream(file, { highWaterMark: 1 MiB }))` server: each request body streamed to its
 * own new file, then `{"size","path"}`. The floor this file used before (a 16 KiB high-water mark) was about 30 %
 * slower than that, so ratios against it flattered Satchel.
 */
export const FLOOR_SCRIPT = process.env.SATCHEL_UPLOAD_FLOOR || '/work/shared/tools/upload-floor.mjs';

/** A port free a moment ago (the floor takes `--port`, and prints no port of its own). */
function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/**
 * The busboy floor (upload-busboy-floor.mjs): bare node:http + busboy + a pipeline into a 1 MiB-buffered write stream,
 * nothing else. Between the floor and Satchel: what busboy itself costs, and what Satchel adds over it.
 */
export const BUSBOY_FLOOR_SCRIPT = new URL('./upload-busboy-floor.mjs', import.meta.url).pathname;

/** The upload servers a bench compares, in the order of its columns, and the path each takes uploads on. */
export const KINDS = ['satchel', 'busboy', 'floor'];
export const uploadPath = (kind) => (kind === 'satchel' ? '/api/upload' : '/upload');

/** Start the plain floor, or with `script` another floor script taking the same arguments (the busboy floor). */
export async function startFloor(dir, { core = 0, script = FLOOR_SCRIPT, args = [] } = {}) {
  const port = await freePort();
  const argv = [script, '--port', String(port), '--dir', dir, '--host', '127.0.0.1', ...args];
  const child = hasCommand('taskset') ? spawn('taskset', ['-c', String(core), process.execPath, ...argv], { stdio: ['ignore', 'pipe', 'inherit'] }) : spawn(process.execPath, argv, { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error('the floor did not start within 20 s')), 20_000);
    child.stdout.on('data', (d) => {
      buf += d;
      if (buf.includes('floor listening')) {
        clearTimeout(timer);
        resolve({ child, info: { port } });
      }
    });
    child.on('exit', (code) => reject(new Error(`the floor exited ${code}`)));
  });
}

/** User + system CPU time of a process so far, in ms. */
export async function cpuMs(pid) {
  const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8');
  // Fields after the parenthesized command name (which may hold spaces): utime is the 12th, stime the 13th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK;
}

const ONE_MIB = (() => {
  const block = Buffer.alloc(MIB);
  for (let i = 0; i < MIB; i += 4) block.writeUInt32LE((i * 2654435761) >>> 0, i);
  return block;
})();

/**
 * POST a multipart upload of `size` bytes (a repeated 1 MiB block, written with back-pressure) on its own
 * connection; resolves with the wall time in ms and the parsed JSON answer. Non-200 rejects.
 */
export function upload(port, { pathname, sessionId = '', filename = 'payload.bin', size }) {
  const head = Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="session_id"\r\n\r\n${sessionId}\r\n` +
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: pathname,
        method: 'POST',
        agent: false,
        headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`, 'Content-Length': head.length + size + tail.length },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          if (res.statusCode !== 200) return reject(new Error(`${pathname}: ${res.statusCode} ${Buffer.concat(chunks)}`));
          resolve({ ms: Number(process.hrtime.bigint() - started) / 1e6, body: JSON.parse(Buffer.concat(chunks).toString()) });
        });
      },
    );
    req.on('error', reject);
    req.write(head);
    let sent = 0;
    const pump = () => {
      while (sent < size) {
        const n = Math.min(MIB, size - sent);
        sent += n;
        if (!req.write(n === MIB ? ONE_MIB : ONE_MIB.subarray(0, n))) return req.once('drain', pump);
      }
      req.end(tail);
    };
    pump();
  });
}

export const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(sorted.length * p) - 1))];
