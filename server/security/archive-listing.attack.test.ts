// Bombs attached as archives and listed for the agent without extracting them (agent/read/archive-file.ts,
// archive/list.ts): a zip member whose header lies about its size, a zip member that honestly inflates to 512 MiB,
// a 42.zip-style zip of zips, and a tar.gz whose one member decompresses to 600 MiB. Each is listed (or refused)
// without inflating past the listing's limits, and the process's resident set stays flat (sampled as it runs).
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_LISTED_TAR_BYTES } from '../archive/list.js';
import { buildTar, tarHeader } from '../archive/testing/tar-builder.js';
import { buildZip, type RawZipEntry } from '../archive/testing/zip-builder.js';
import type { ChatAttachment } from '../core/wire.js';
import { Budget, readAttachment } from '../content/index.js';
import type { Part } from '../content/index.js';

const MIB = 1024 * 1024;
/** What the deflate bombs inflate to: double the listed tar cap, far over any member the listing holds. */
const BOMB_MIB = 512;
/** The tar.gz bomb's member: more than twice MAX_LISTED_TAR_BYTES. */
const TAR_BOMB_MIB = 600;
/** Resident set growth allowed while one bomb is listed: a few decoder windows and the zip reader's 1 MiB window. */
const MAX_RSS_GROWTH_MIB = 64;
const SAMPLE_MS = 5;
const TIMEOUT_MS = 120_000;

let tmp: string;
let root: string;

/** `head`, `mib` MiB of zeros and `tail`, compressed by `z` a MiB at a time: the bomb is never whole in memory. */
async function compressedZeros(z: zlib.Gzip | zlib.DeflateRaw, mib: number, head: Buffer = Buffer.alloc(0), tail: Buffer = Buffer.alloc(0)): Promise<Buffer> {
  const out: Buffer[] = [];
  z.on('data', (c: Buffer) => out.push(c));
  const done = once(z, 'end');
  z.write(head);
  const zeros = Buffer.alloc(MIB);
  for (let i = 0; i < mib; i++) if (!z.write(zeros)) await once(z, 'drain');
  z.end(tail);
  await done;
  return Buffer.concat(out);
}

function store(name: string, bytes: Buffer): ChatAttachment {
  const file = path.join(root, name);
  fs.writeFileSync(file, bytes);
  return { kind: 'file', filename: name, path: file, mime: 'application/octet-stream', size: bytes.length, is_image: false };
}

async function listedWithPeak(a: ChatAttachment): Promise<{ text: string; summary: { state: string; text: string }; growthMiB: number }> {
  global.gc?.();
  const baseline = process.memoryUsage.rss();
  let peak = baseline;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), SAMPLE_MS);
  try {
    const read = await readAttachment(a, new Budget(200_000), { roots: [root] });
    peak = Math.max(peak, process.memoryUsage.rss());
    const text = read.parts.map((p: Part) => (p.type === 'text' ? p.text : '')).join('\n');
    return { text, summary: read.summary, growthMiB: Math.round((peak - baseline) / MIB) };
  } finally {
    clearInterval(timer);
  }
}

let lyingZip: ChatAttachment;
let honestZip: ChatAttachment;
let nestedZip: ChatAttachment;
let tarBomb: ChatAttachment;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-listing-bomb-'));
  root = path.join(tmp, 'attachments');
  fs.mkdirSync(root);
  const deflated = await compressedZeros(zlib.createDeflateRaw({ level: 9 }), BOMB_MIB);
  const readme: RawZipEntry = { name: 'README.md', content: Buffer.from('# not a bomb\n') };
  // Declares 100 bytes: small enough to be read for the agent, so only the inflate limit stands in the way.
  lyingZip = store('lying.zip', buildZip([{ name: 'notes.txt', method: 8, compressed: deflated, declaredSize: 100 }, readme]));
  honestZip = store('honest.zip', buildZip([{ name: 'zeros.txt', method: 8, compressed: deflated, declaredSize: BOMB_MIB * MIB }, readme]));
  // 42.zip's shape: zips inside a zip, each inner one a deflate bomb; nothing inside an inner zip is listed.
  const inner = buildZip([{ name: 'zeros.txt', method: 8, compressed: deflated, declaredSize: BOMB_MIB * MIB }]);
  nestedZip = store('42.zip', buildZip(Array.from({ length: 16 }, (_, i) => ({ name: `lib ${i}.zip`, content: inner }))));
  // One member of zeros, then a second one the listing never reaches, then the end blocks.
  const after = buildTar([{ name: 'after.txt', content: Buffer.from('after') }]);
  tarBomb = store('bomb.tar.gz', await compressedZeros(zlib.createGzip({ level: 9 }), TAR_BOMB_MIB, tarHeader({ name: 'zeros.txt', size: TAR_BOMB_MIB * MIB }), after));
}, TIMEOUT_MS);

afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('archive bombs listed for the agent, never inflated', () => {
  it('a member whose header lies about its size is listed, never inflated past it', async () => {
    const { text, summary, growthMiB } = await listedWithPeak(lyingZip);
    console.log(`lying.zip (${lyingZip.kind === 'file' ? lyingZip.size : 0} bytes, inflates to ${BOMB_MIB} MiB): resident set grew ${growthMiB} MiB`);
    expect(text.split('\n').slice(0, 3)).toEqual(['Archive "lying.zip" (2 files, not extracted):', '- notes.txt (100 bytes)', '- README.md (13 bytes)']);
    expect(text).toContain('# not a bomb');
    expect(text).not.toContain('Attached file "lying.zip/notes.txt"');
    expect(summary).toEqual({ state: 'ready', text: 'file list of 2 files, 1 text file inline' });
    expect(growthMiB).toBeLessThan(MAX_RSS_GROWTH_MIB);
  }, TIMEOUT_MS);

  it('a member that honestly inflates to 512 MiB is listed with its size, not read', async () => {
    const { text, growthMiB } = await listedWithPeak(honestZip);
    console.log(`honest.zip: resident set grew ${growthMiB} MiB`);
    expect(text).toContain(`- zeros.txt (${BOMB_MIB * MIB} bytes)`);
    expect(growthMiB).toBeLessThan(MAX_RSS_GROWTH_MIB);
  }, TIMEOUT_MS);

  it('a 42.zip-style zip of zips is listed one level deep', async () => {
    const { text, summary, growthMiB } = await listedWithPeak(nestedZip);
    console.log(`42.zip: resident set grew ${growthMiB} MiB`);
    expect(text).toContain('- lib 0.zip (');
    expect(text).not.toContain('zeros.txt');
    expect(summary).toEqual({ state: 'ready', text: 'file list of 16 files' });
    expect(growthMiB).toBeLessThan(MAX_RSS_GROWTH_MIB);
  }, TIMEOUT_MS);

  it(`a tar.gz is decompressed at most ${MAX_LISTED_TAR_BYTES / MIB} MiB: the list stops there and says so`, async () => {
    const started = Date.now();
    const { text, summary, growthMiB } = await listedWithPeak(tarBomb);
    console.log(`bomb.tar.gz (${TAR_BOMB_MIB} MiB member): listed in ${Date.now() - started} ms, resident set grew ${growthMiB} MiB`);
    expect(text).toContain(`- zeros.txt (${TAR_BOMB_MIB * MIB} bytes)`);
    expect(text).not.toContain('after.txt');
    expect(text).toContain(`- … and more not listed (the list stops after ${MAX_LISTED_TAR_BYTES / MIB} MiB of the archive)`);
    expect(summary).toEqual({ state: 'partial', text: 'file list of 1 file or more, cut to fit' });
    expect(growthMiB).toBeLessThan(MAX_RSS_GROWTH_MIB);
  }, TIMEOUT_MS);
});
