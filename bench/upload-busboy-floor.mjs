#!/usr/bin/env node
// The busboy floor for upload benchmarks (issue 37, finding 5): bare `node:http` + busboy (the parser the person asked
// Satchel to use) + `pipeline(file, createWriteStream(p, { highWaterMark: 1 MiB }))`, nothing else — no framing
// checks, no limits, no staging, no row. Beside the plain floor (/work/shared/tools/upload-floor.mjs: the body piped
// to a file, no parsing) it shows what busboy itself costs; beside Satchel, what Satchel adds over busboy.
// busboy is given the options Satchel gives it that change its per-byte work (the 1 MiB stream buffers), so the
// column is busboy's cost at Satchel's settings; `--busboy-defaults` leaves busboy's own (16 KiB) instead.
// Replies {"size":N,"path":P} with the file part's size, as the plain floor does.
//   node bench/upload-busboy-floor.mjs --port 18791 --dir <a scratch folder> [--host 127.0.0.1] [--busboy-defaults]
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import { arg, flag } from './lib.mjs';

const MIB = 1 << 20;
const dir = arg('--dir', '.');
const defaults = flag('--busboy-defaults');
let n = 0;
fs.mkdirSync(dir, { recursive: true });

http
  .createServer((req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end('{"ok":true}');
    }
    const fail = (e) => {
      if (!res.headersSent) res.writeHead(500).end(JSON.stringify({ error: String(e) }));
    };
    let bb;
    try {
      bb = busboy(defaults ? { headers: req.headers } : { headers: req.headers, highWaterMark: MIB, fileHwm: MIB });
    } catch (e) {
      return fail(e);
    }
    const writes = [];
    let size = 0;
    let last = '';
    bb.on('file', (_name, file) => {
      const p = path.join(dir, `up-${process.pid}-${n++}.bin`);
      const ws = fs.createWriteStream(p, { highWaterMark: MIB });
      writes.push(
        pipeline(file, ws).then(() => {
          size = ws.bytesWritten;
          last = p;
        }),
      );
    });
    bb.on('close', () => {
      Promise.all(writes).then(() => {
        const body = JSON.stringify({ size, path: last });
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
      }, fail);
    });
    bb.on('error', fail);
    req.pipe(bb);
  })
  .listen(+arg('--port', 18791), arg('--host', '127.0.0.1'), () => console.log(`floor listening ${process.pid}`));
