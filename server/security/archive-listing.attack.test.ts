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
import type { ChatAttachment } from '../core/wire.js';
import { Budget, readAttachment } from '../agent/read/index.js';
import type { ContentPart } from '../agent/types.js';

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

interface Member {
  name: string;
  data: Buffer;
  method: 0 | 8;
  /** As the headers declare it (a lie, for the lying bomb). */
  size: number;
  crc: number;
}

/** A zip written by hand, so a header can declare what a tool would never write. */
function zipOf(members: Member[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const m of members) {
    const name = Buffer.from(m.name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(m.method, 8);
    local.writeUInt32LE(m.crc, 14);
    local.writeUInt32LE(m.data.length, 18);
    local.writeUInt32LE(m.size, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(m.method, 10);
    central.writeUInt32LE(m.crc, 16);
    central.writeUInt32LE(m.data.length, 20);
    central.writeUInt32LE(m.size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, m.data);
    centrals.push(central, name);
    offset += 30 + name.length + m.data.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(members.length, 8);
  end.writeUInt16LE(members.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

/** A ustar header for a regular file of `size` bytes. */
function tarHeader(name: string, size: number): Buffer {
  const h = Buffer.alloc(512);
  h.write(name, 0);
  h.write('0000644\0', 100);
  h.write('0000000\0', 108);
  h.write('0000000\0', 116);
  h.write(size.toString(8).padStart(11, '0') + '\0', 124);
  h.write('00000000000\0', 136);
  h.write('        ', 148);
  h.write('0', 156);
  h.write('ustar\0', 257);
  h.write('00', 263);
  let sum = 0;
  for (const b of h) sum += b;
  h.write(sum.toString(8).padStart(6, '0') + '\0 ', 148);
  return h;
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
    const text = read.parts.map((p: ContentPart) => (p.type === 'text' ? p.text : '')).join('\n');
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
  const readme = Buffer.from('# not a bomb\n');
  const readmeMember: Member = { name: 'README.md', data: readme, method: 0, size: readme.length, crc: zlib.crc32(readme) };
  // Declares 100 bytes: small enough to be read for the agent, so only the inflate limit stands in the way.
  lyingZip = store('lying.zip', zipOf([{ name: 'notes.txt', data: deflated, method: 8, size: 100, crc: 0 }, readmeMember]));
  honestZip = store('honest.zip', zipOf([{ name: 'zeros.txt', data: deflated, method: 8, size: BOMB_MIB * MIB, crc: 0 }, readmeMember]));
  // 42.zip's shape: zips inside a zip, each inner one a deflate bomb; nothing inside an inner zip is listed.
  const inner = zipOf([{ name: 'zeros.txt', data: deflated, method: 8, size: BOMB_MIB * MIB, crc: 0 }]);
  nestedZip = store('42.zip', zipOf(Array.from({ length: 16 }, (_, i) => ({ name: `lib ${i}.zip`, data: inner, method: 0 as const, size: inner.length, crc: zlib.crc32(inner) }))));
  // One member of zeros, then a second one the listing never reaches, then the end blocks.
  const after = Buffer.concat([tarHeader('after.txt', 5), Buffer.from('after'), Buffer.alloc(507 + 1024)]);
  tarBomb = store('bomb.tar.gz', await compressedZeros(zlib.createGzip({ level: 9 }), TAR_BOMB_MIB, tarHeader('zeros.txt', TAR_BOMB_MIB * MIB), after));
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
