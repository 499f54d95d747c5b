// The extraction engines (yauzl's zip reader; node-tar with the xz and bzip2 decoders) load with the first
// archive of their kind, not with the server: most starts extract nothing.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

const loads = vi.hoisted(() => ({ zip: 0, tar: 0, xz: 0 }));
vi.mock('./zip.js', async (original) => {
  loads.zip++;
  return original();
});
vi.mock('tar', async (original) => {
  loads.tar++;
  return original();
});
vi.mock('xz-decompress', async (original) => {
  loads.xz++;
  return original();
});

const { startServer } = await import('../index.js');
const { allocateExtractionDir, extractArchive } = await import('./index.js');
const { listTree, makeSandbox, writeArchive, yazlZip } = await import('./testing/fixtures.js');
type Sandbox = Awaited<ReturnType<typeof makeSandbox>>;

const MAX_BYTES = 1 << 20;
let sb: Sandbox;
beforeEach(async () => {
  sb = await makeSandbox();
});
afterEach(async () => {
  await sb.cleanup();
});

describe('archive engines, loaded on first use', () => {
  it('are not loaded with the server; the first zip and tar.xz, extracted at once, load theirs', async () => {
    expect(typeof startServer).toBe('function');
    expect(loads).toEqual({ zip: 0, tar: 0, xz: 0 });

    const zip = writeArchive(sb, 'a.zip', await yazlZip({ 'a.txt': Buffer.from('from zip') }));
    const src = path.join(sb.root, 'src');
    fs.mkdirSync(src);
    fs.writeFileSync(path.join(src, 'b.txt'), 'from tar');
    const txz = path.join(sb.inbox, 'b.tar.xz');
    execFileSync('tar', ['-cJf', txz, '-C', src, 'b.txt']); // GNU tar with xz, as a user would make one

    const [zipDest, tarDest] = await Promise.all([allocateExtractionDir(sb.base, 'a.zip'), allocateExtractionDir(sb.base, 'b.tar.xz')]);
    await Promise.all([
      extractArchive(zip, 'a.zip', zipDest, sb.base, { maxBytes: MAX_BYTES }),
      extractArchive(txz, 'b.tar.xz', tarDest, sb.base, { maxBytes: MAX_BYTES }),
    ]);
    expect(await listTree(zipDest)).toEqual(['a.txt']);
    expect(fs.readFileSync(path.join(tarDest, 'b.txt'), 'utf8')).toBe('from tar');
    expect(loads).toEqual({ zip: 1, tar: 1, xz: 1 });
  });
});
