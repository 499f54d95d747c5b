// A local attacker: a process exchanges a directory the server works in with a symlink to outside, in a
// tight loop (renameat2 RENAME_EXCHANGE, server/testing/rename-exchange.py), while 300 uploads, 100 archive
// extractions and 500 previews run. Nothing may be written outside, no outside byte may be returned, and the
// uploaded archives are gone after extraction. The number of swaps is printed (and must be > 0).
import fs from 'node:fs/promises';
import path from 'node:path';
import { yazlZip } from './archive/testing/fixtures.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { isInside } from './core/paths.js';
import { multipartBody, startTestServer, type TestServer } from './testing/harness.js';
import { pool, startSwapper, swapSkipReason, type Swapper } from './testing/swapper.js';

const UPLOADS = 300;
const EXTRACTIONS = 100;
const PREVIEWS = 500;
// Requests in flight at once: enough to overlap every kind of operation with the swaps, few enough that two
// loaded cores (one of them busy swapping) finish the lot well inside the test's time.
const CONCURRENCY = 8;
const TEST_TIMEOUT_MS = 120_000;
const BOUNDARY = 'swapRaceBoundary';
const INSIDE_BYTES = 'inside preview bytes';
const OUTSIDE_BYTES = 'OUTSIDE-SECRET-BYTES';

const reason = swapSkipReason();

let srv: TestServer;
let ws: string;
let outside: string;
let session: string;
let attachRoot: string;
let swapper: Swapper | undefined;

beforeAll(async () => {
  if (reason) return;
  srv = await startTestServer();
  ws = await fs.realpath(srv.workspace);
  outside = path.join(await fs.realpath(srv.tmp), 'outside');
  await fs.mkdir(outside);
  // What a redirected preview would return, and what a redirected write would add to.
  await fs.writeFile(path.join(outside, 'preview.txt'), OUTSIDE_BYTES);
  await fs.mkdir(path.join(ws, 'swap'));
  await fs.writeFile(path.join(ws, 'swap', 'preview.txt'), INSIDE_BYTES);
  await fs.symlink(outside, path.join(ws, 'swap-link'));
  session = await srv.newSession();
  attachRoot = path.join(srv.stateDir, 'attachments');
  await fs.mkdir(path.join(attachRoot, session), { recursive: true });
  await fs.symlink(outside, path.join(attachRoot, `${session}-link`));
});

afterAll(async () => {
  swapper?.kill();
  await srv?.stop();
});

/** The one fixed pair of names is swapped; undo it to find where a file reported under one of them is now. */
function partner(p: string): string[] {
  const pairs: [string, string][] = [
    [path.join(ws, 'swap'), path.join(ws, 'swap-link')],
    [path.join(attachRoot, session), path.join(attachRoot, `${session}-link`)],
  ];
  for (const [a, b] of pairs) {
    if (isInside(a, p)) return [p, path.join(b, path.relative(a, p))];
  }
  return [p];
}

async function readAnywhere(p: string): Promise<string | undefined> {
  for (const candidate of partner(p)) {
    const text = await fs.readFile(candidate, 'utf8').catch(() => undefined);
    if (text !== undefined) return text;
  }
  return undefined;
}


type Part = Parameters<typeof multipartBody>[1][number];

async function post(route: string, parts: Part[]): Promise<{ status: number; body: Record<string, any> }> {
  const res = await srv.api(route, {
    method: 'POST',
    body: new Uint8Array(multipartBody(BOUNDARY, [{ name: 'session_id', content: session }, ...parts])),
    headers: { 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}` },
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

async function treeOf(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { recursive: true });
  return entries.map(String).sort();
}

it.skipIf(reason !== undefined)(
  `${UPLOADS} uploads, ${EXTRACTIONS} extractions and ${PREVIEWS} previews under a concurrent directory/symlink swap write and read nothing outside`,
  async () => {
    const outsideBefore = await treeOf(outside);
    const zip = await yazlZip({ 'top.txt': 'top', 'nested/deep.txt': 'deep' });
    const uploads: { route: string; status: number; body: Record<string, any>; content: string }[] = [];
    const extractions: { route: string; status: number; body: Record<string, any> }[] = [];
    const previews: { status: number; body: string }[] = [];

    const jobs: (() => Promise<void>)[] = [];
    for (let i = 0; i < UPLOADS; i++) {
      const content = `upload ${i}`;
      const route = i % 2 === 0 ? '/api/workspace/upload' : '/api/upload';
      const parts: Part[] = route === '/api/workspace/upload' ? [{ name: 'path', content: 'swap' }] : [];
      jobs.push(async () => {
        const res = await post(route, [...parts, { name: 'file', filename: `u${i}.txt`, content }]);
        uploads.push({ route, content, ...res });
      });
    }
    for (let i = 0; i < EXTRACTIONS; i++) {
      const route = i % 2 === 0 ? '/api/workspace/upload' : '/api/upload/extract';
      const parts: Part[] = route === '/api/workspace/upload' ? [{ name: 'path', content: 'swap' }] : [];
      jobs.push(async () => {
        extractions.push({ route, ...(await post(route, [...parts, { name: 'file', filename: `a${i}.zip`, content: zip }])) });
      });
    }
    for (let i = 0; i < PREVIEWS; i++) {
      jobs.push(async () => {
        const res = await srv.api(`/api/workspace/file?session_id=${session}&path=swap/preview.txt`);
        previews.push({ status: res.status, body: await res.text() });
      });
    }
    // Interleave the kinds so each runs throughout the swapping.
    const shuffled = jobs.map((job, i) => ({ job, key: (i * 7919) % jobs.length })).sort((a, b) => a.key - b.key).map((j) => j.job);

    swapper = await startSwapper(path.join(ws, 'swap'), path.join(ws, 'swap-link'), path.join(attachRoot, session), path.join(attachRoot, `${session}-link`));
    const started = performance.now();
    let swaps: number;
    try {
      await pool(shuffled.length, CONCURRENCY, (i) => shuffled[i]!());
    } finally {
      swaps = await swapper.stop();
    }
    const seconds = ((performance.now() - started) / 1000).toFixed(1);

    const ok = (list: { status: number }[]) => list.filter((r) => r.status === 200).length;
    const written = (await treeOf(outside)).filter((n) => !outsideBefore.includes(n)).length;
    const leaked = previews.filter((p) => p.body.includes(OUTSIDE_BYTES)).length;
    console.log(
      `swap race: ${swaps} swaps in ${seconds} s; uploads ${ok(uploads)}/${UPLOADS} stored, extractions ${ok(extractions)}/${EXTRACTIONS} done, ` +
        `previews ${previews.filter((p) => p.body === INSIDE_BYTES).length}/${PREVIEWS} served (the rest refused); ` +
        `${written} new entries outside, ${leaked} previews with outside bytes`,
    );
    expect(swaps).toBeGreaterThan(0);

    // Nothing written outside, no outside byte returned.
    expect(await treeOf(outside)).toEqual(outsideBefore);
    expect(await fs.readFile(path.join(outside, 'preview.txt'), 'utf8')).toBe(OUTSIDE_BYTES);
    for (const p of previews) {
      expect(p.body).not.toContain(OUTSIDE_BYTES);
      expect([200, 403]).toContain(p.status);
    }

    // Every answer is a success or a refusal, and a success reports a path inside that holds the upload.
    for (const u of uploads) {
      expect([200, 400, 403], JSON.stringify(u.body)).toContain(u.status);
      if (u.status !== 200) continue;
      expect(isInside(u.route === '/api/upload' ? attachRoot : ws, u.body.path)).toBe(true);
      expect(await readAnywhere(u.body.path)).toBe(u.content);
    }
    for (const e of extractions) {
      expect([200, 400, 403], JSON.stringify(e.body)).toContain(e.status);
      if (e.status !== 200) continue;
      const dest: string = e.route === '/api/upload/extract' ? e.body.dest : e.body.path;
      if (e.route === '/api/workspace/upload') expect(e.body.extracted).toBe(true);
      expect(isInside(e.route === '/api/upload/extract' ? attachRoot : ws, dest)).toBe(true);
      expect(await readAnywhere(path.join(dest, 'nested', 'deep.txt'))).toBe('deep');
    }
    for (const list of [uploads, extractions, previews]) expect(ok(list)).toBeGreaterThan(0);

    // The uploaded archives were removed after extraction, wherever the swap left their directory.
    const wsTree = [...(await treeOf(path.join(ws, 'swap'))), ...(await treeOf(path.join(ws, 'swap-link')))];
    expect(wsTree.filter((n) => n.endsWith('.zip'))).toEqual([]);
    expect(await fs.readdir(path.join(srv.stateDir, 'staging'))).toEqual([]);
  },
  TEST_TIMEOUT_MS,
);
