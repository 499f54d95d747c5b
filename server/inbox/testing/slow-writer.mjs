// A child process that writes files into a watched folder the way browsers, scanners and sync clients do:
// in chunks with pauses (each pause shorter than the watcher's settle time), some into a temporary name renamed
// at the end, some created empty and filled later. Synchronous calls from one event loop, so the order in which
// files became complete is exactly the order of the final calls, which it prints (one JSON line) when done.
// Usage: node slow-writer.mjs <folder> <count> <spreadMs> <gapMs>
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';

const [dir, countArg, spreadArg, gapArg] = process.argv.slice(2);
const count = Number(countArg);
const spreadMs = Number(spreadArg);
const gapMs = Number(gapArg);
const completed = [];
let pending = count;

function plan(i) {
  const name = `f${String(i).padStart(4, '0')}.txt`;
  // 3 to 5 chunks of distinct bytes: a partial read can never equal the final file.
  const chunks = Array.from({ length: 3 + (i % 3) }, (_, k) => Buffer.concat([Buffer.from(`${name} chunk ${k}\n`), crypto.randomBytes(256 + ((i * 7 + k) % 512))]));
  return { name, chunks, kind: i % 3 };
}

function done(name) {
  completed.push(name);
  if (--pending === 0) process.stdout.write(JSON.stringify(completed) + '\n');
}

function run(i) {
  const { name, chunks, kind } = plan(i);
  // kind 0: written in place; kind 1: into `name.part`, renamed when done; kind 2: made empty, filled later.
  const target = path.join(dir, kind === 1 ? `${name}.part` : name);
  if (kind === 2) fs.writeFileSync(target, '');
  let k = 0;
  const step = () => {
    fs.appendFileSync(target, chunks[k++]);
    if (k < chunks.length) return void setTimeout(step, gapMs);
    if (kind === 1) fs.renameSync(target, path.join(dir, name));
    done(name);
  };
  setTimeout(step, kind === 2 ? gapMs : 0);
}

for (let i = 0; i < count; i++) setTimeout(() => run(i), Math.floor((i / count) * spreadMs));
