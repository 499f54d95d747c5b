import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { c as tarCreate } from 'tar';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { allocateExtractionDir, extractArchive } from './index.js';
import { compress, listTree, makeSandbox, noise, writeArchive, type Sandbox } from './testing/fixtures.js';
import { extractFails, extractOk, MIB } from './testing/harness.js';
import { buildTar, type RawTarEntry } from './testing/tar-builder.js';

let sb: Sandbox;
beforeEach(async () => {
  sb = await makeSandbox();
});
afterEach(async () => {
  await sb.cleanup();
});

const KINDS = [
  ['tar', 'pack.tar'],
  ['tar.gz', 'pack.tar.gz'],
  ['tar.gz', 'pack.TGZ'],
  ['tar.bz2', 'pack.tar.bz2'],
  ['tar.bz2', 'pack.tbz2'],
  ['tar.xz', 'pack.tar.xz'],
  ['tar.xz', 'pack.txz'],
] as const;

/** A tree on disk, packed with node-tar's own writer (the benign case). */
async function benignTar(): Promise<{ bytes: Buffer; expected: Map<string, Buffer> }> {
  const src = path.join(sb.root, 'src');
  const expected = new Map<string, Buffer>([
    ['top.txt', Buffer.from('top level\n')],
    ['empty', Buffer.alloc(0)],
    ['a/b/c/deep.bin', noise(150_000, 11)],
    ['a/text.md', Buffer.from('# title\n'.repeat(5000))],
    ['ünï cödé.txt', Buffer.from('unicode')],
    [`long/${'n'.repeat(120)}.txt`, Buffer.from('a name over 100 bytes needs a pax/gnu header')],
  ]);
  for (const [rel, data] of expected) {
    await fsp.mkdir(path.dirname(path.join(src, rel)), { recursive: true });
    await fsp.writeFile(path.join(src, rel), data);
  }
  await fsp.symlink('top.txt', path.join(src, 'link-to-top'));
  const tarFile = path.join(sb.root, 'src.tar');
  await tarCreate({ cwd: src, file: tarFile, portable: true }, ['.']);
  const bytes = await fsp.readFile(tarFile);
  await fsp.rm(src, { recursive: true });
  await fsp.rm(tarFile);
  return { bytes, expected };
}

describe('benign tar family', () => {
  for (const [kind, name] of KINDS) {
    it(`extracts ${name} byte-exact, regular files only`, async () => {
      const { bytes, expected } = await benignTar();
      const { dest, result } = await extractOk(sb, name, compress(bytes, kind));
      const stem = name.slice(0, name.lastIndexOf('.'));
      expect(dest).toBe(path.join(sb.base, stem));
      expect([...result.files].sort()).toEqual([...expected.keys()].map((k) => `${stem}/${k}`).sort());
      expect(result.extracted).toBe(expected.size);
      for (const [rel, data] of expected) {
        expect(fs.readFileSync(path.join(dest, rel)).equals(data), rel).toBe(true);
      }
      expect(fs.existsSync(path.join(dest, 'link-to-top'))).toBe(false);
    });
  }

  it('decodes a multi-stream (pbzip2-style, concatenated) bzip2 tar', async () => {
    const tarBytes = buildTar([
      { name: 'one.bin', content: noise(400_000, 5) },
      { name: 'two.txt', content: Buffer.from('two') },
    ]);
    const half = 200_000;
    const bytes = Buffer.concat([compress(tarBytes.subarray(0, half), 'tar.bz2'), compress(tarBytes.subarray(half), 'tar.bz2')]);
    const { dest } = await extractOk(sb, 'multi.tar.bz2', bytes);
    expect(fs.readFileSync(path.join(dest, 'one.bin')).equals(noise(400_000, 5))).toBe(true);
    expect(fs.readFileSync(path.join(dest, 'two.txt'), 'utf8')).toBe('two');
  });

  it('decodes a bzip2 tar spanning many 900 kB blocks', async () => {
    const data = noise(3 * MIB, 9);
    const { dest } = await extractOk(sb, 'blocks.tar.bz2', compress(buildTar([{ name: 'n.bin', content: data }]), 'tar.bz2'));
    expect(fs.readFileSync(path.join(dest, 'n.bin')).equals(data)).toBe(true);
  });

  it('keeps the first of duplicate members (tar -r appends) and never overwrites', async () => {
    const bytes = buildTar([
      { name: 'same.txt', content: Buffer.from('first') },
      { name: 'same.txt', content: Buffer.from('second, appended later') },
      { name: 'after.txt', content: Buffer.from('after') },
    ]);
    const { dest, result } = await extractOk(sb, 'dup.tar', bytes);
    expect(result.files).toEqual(['dup/same.txt', 'dup/after.txt']);
    expect(fs.readFileSync(path.join(dest, 'same.txt'), 'utf8')).toBe('first');
  });
});

describe('tar-slip', () => {
  const names = ['../evil', './a/../../evil', 'C:\\x', '..\\x', 'a\\..\\..\\x'];
  for (const name of names) {
    it(`blocks ${JSON.stringify(name)} in every compression`, async () => {
      for (const kind of ['tar', 'tar.gz', 'tar.bz2', 'tar.xz'] as const) {
        const bytes = buildTar([{ name: 'ok.txt', content: Buffer.from('ok') }, { name, content: Buffer.from('evil') }]);
        await extractFails(sb, `slip.${kind}`, compress(bytes, kind), `Tar-slip blocked: ${name}`);
      }
    });
  }

  it('blocks an absolute path into a real directory outside', async () => {
    const name = path.join(sb.outside, 'evil');
    await extractFails(sb, 'abs.tar', buildTar([{ name, content: Buffer.from('x') }]), `Tar-slip blocked: ${name}`);
  });

  it('blocks a hostile name on a member type that is never written (symlink)', async () => {
    await extractFails(sb, 'sym.tar', buildTar([{ name: '../l', type: 'symlink', linkname: '/etc' }]), 'Tar-slip blocked: ../l');
  });
});

describe('non-regular tar members', () => {
  it('a symlink then a file through it: the file lands in a real directory inside', async () => {
    const bytes = buildTar([
      { name: 'link', type: 'symlink', linkname: sb.outside },
      { name: 'link/evil.txt', content: Buffer.from('stays inside') },
    ]);
    const { dest, result } = await extractOk(sb, 'symthrough.tar', bytes);
    expect(result.files).toEqual(['symthrough/link/evil.txt']);
    expect(fs.lstatSync(path.join(dest, 'link')).isDirectory()).toBe(true);
    expect(fs.readFileSync(path.join(dest, 'link/evil.txt'), 'utf8')).toBe('stays inside');
  });

  it('never writes hardlinks, devices, fifos or directories', async () => {
    const secret = path.join(sb.outside, 'secret');
    const entries: RawTarEntry[] = [
      { name: 'dir', type: 'dir' },
      { name: 'hard', type: 'hardlink', linkname: secret },
      { name: 'hard-rel', type: 'hardlink', linkname: 'real.txt' },
      { name: 'tty', type: 'chardev' },
      { name: 'disk', type: 'blockdev' },
      { name: 'pipe', type: 'fifo' },
      { name: 'real.txt', content: Buffer.from('real') },
    ];
    const { dest, result } = await extractOk(sb, 'special.tar', buildTar(entries));
    expect(result.files).toEqual(['special/real.txt']);
    expect(await listTree(dest)).toEqual(['real.txt']);
  });
});

describe('tar bombs', () => {
  it('refuses more than 10000 members and leaves nothing', async () => {
    const entries = Array.from({ length: 10001 }, (_, i) => ({ name: `f${i}`, content: Buffer.from('x') }));
    await extractFails(sb, 'many.tar.gz', compress(buildTar(entries), 'tar.gz'), 'Archive has too many files (> 10000). Possible archive bomb.');
  });

  it('counts non-file members toward the limit too', async () => {
    const entries: RawTarEntry[] = Array.from({ length: 10001 }, (_, i) => ({ name: `d${i}`, type: 'dir' as const }));
    await extractFails(sb, 'dirs.tar', buildTar(entries), 'Archive has too many files (> 10000). Possible archive bomb.');
  });

  it('stops a member bigger than the cap by counting real bytes', async () => {
    const bytes = compress(buildTar([{ name: 'big.bin', content: Buffer.alloc(12 * MIB) }]), 'tar.gz');
    expect(bytes.length).toBeLessThan(100 * 1024);
    await extractFails(sb, 'big.tar.gz', bytes, 'Extraction too large (max 4194304 bytes). Possible zip bomb.', 4 * MIB);
  });

  it('stops many small members that add up past the cap', async () => {
    const entries = Array.from({ length: 40 }, (_, i) => ({ name: `p${i}.bin`, content: Buffer.alloc(MIB, i) }));
    await extractFails(sb, 'sum.tar.xz', compress(buildTar(entries), 'tar.xz'), /^Extraction too large \(max 10485760 bytes\)\. Possible zip bomb\.$/, 10 * MIB);
  });

  it('stops a bzip2 bomb (64 MiB of zeros in a few kB) at the cap and stops its decoder', async () => {
    const bytes = compress(buildTar([{ name: 'zeros.bin', content: Buffer.alloc(64 * MIB) }]), 'tar.bz2');
    expect(bytes.length).toBeLessThan(64 * 1024);
    await extractFails(sb, 'bomb.tar.bz2', bytes, 'Extraction too large (max 2097152 bytes). Possible zip bomb.', 2 * MIB);
  });

  it('allows exactly the cap', async () => {
    const { result } = await extractOk(sb, 'exact.tar', buildTar([{ name: 'x.bin', content: Buffer.alloc(MIB, 1) }]), MIB);
    expect(result.extracted).toBe(1);
  });
});

describe('tar failures', () => {
  it('a truncated tar.gz is not a ValueError and leaves nothing', async () => {
    const bytes = compress(buildTar([{ name: 'a.bin', content: noise(300_000) }]), 'tar.gz');
    await extractFails(sb, 'cut.tar.gz', bytes.subarray(0, bytes.length - 1000), 'other');
  });

  it('a corrupt bzip2 stream is not a ValueError', async () => {
    const bytes = Buffer.from(compress(buildTar([{ name: 'a.bin', content: noise(300_000) }]), 'tar.bz2'));
    bytes[bytes.length >> 1] = bytes[bytes.length >> 1]! ^ 0xff;
    await extractFails(sb, 'bad.tar.bz2', bytes, 'other');
  });

  it('a corrupt xz stream is not a ValueError, and the xz decoder stays usable afterwards', async () => {
    const bytes = Buffer.from(compress(buildTar([{ name: 'a.bin', content: noise(300_000) }]), 'tar.xz'));
    bytes[bytes.length >> 1] = bytes[bytes.length >> 1]! ^ 0xff;
    await extractFails(sb, 'bad.tar.xz', bytes, 'other');
    const good = compress(buildTar([{ name: 'ok.txt', content: Buffer.from('ok') }]), 'tar.xz');
    const { result } = await extractOk(sb, 'good.tar.xz', good);
    expect(result.files).toEqual(['good.tar/ok.txt']);
  });

  it('garbage named .tar is not a ValueError', async () => {
    await extractFails(sb, 'junk.tar', Buffer.from('not a tar '.repeat(200)), 'other');
  });

  it('an abort mid-extraction cleans up and rethrows the reason', async () => {
    const entries = Array.from({ length: 200 }, (_, i) => ({ name: `f${i}.bin`, content: noise(64 * 1024, i + 1) }));
    const archive = writeArchive(sb, 'slow.tar.bz2', compress(buildTar(entries), 'tar.bz2'));
    const dest = await allocateExtractionDir(sb.base, 'slow.tar.bz2');
    const controller = new AbortController();
    const reason = new Error('client went away');
    const pending = extractArchive(archive, 'slow.tar.bz2', dest, sb.base, { maxBytes: 64 * MIB, signal: controller.signal });
    const deadline = Date.now() + 10_000;
    while (!fs.existsSync(path.join(dest, 'f0.bin')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 2));
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    expect(fs.existsSync(dest)).toBe(false);
    // bzip2 decodes at ~1 MB/s: building and starting this archive alone can take tens of seconds on a loaded machine.
  }, 90_000);

  it('concurrent xz extractions both finish (the decoder serializes, it must not deadlock)', async () => {
    const one = compress(buildTar([{ name: 'one.bin', content: noise(500_000, 1) }]), 'tar.xz');
    const two = compress(buildTar([{ name: 'two.bin', content: noise(500_000, 2) }]), 'tar.xz');
    const [a, b] = await Promise.all([extractOk(sb, 'one.tar.xz', one), extractOk(sb, 'two.tar.xz', two)]);
    expect(fs.readFileSync(path.join(a.dest, 'one.bin')).equals(noise(500_000, 1))).toBe(true);
    expect(fs.readFileSync(path.join(b.dest, 'two.bin')).equals(noise(500_000, 2))).toBe(true);
  });
});

describe('event loop', () => {
  for (const [kind, name] of [['tar.gz', 'loop.tar.gz'], ['tar.bz2', 'loop.tar.bz2'], ['tar.xz', 'loop.tar.xz']] as const) {
    it(`keeps timers firing while a large ${kind} extracts`, async () => {
      const size = kind === 'tar.gz' ? 48 * MIB : 12 * MIB;
      const tarBytes = buildTar([
        { name: 'zeros.bin', content: Buffer.alloc(size) },
        { name: 'noise.bin', content: noise(2 * MIB, 4) },
      ]);
      const archive = writeArchive(sb, name, compress(tarBytes, kind));
      const dest = await allocateExtractionDir(sb.base, name);
      let ticks = 0;
      let last = performance.now();
      let worstGap = 0;
      const timer = setInterval(() => {
        const now = performance.now();
        worstGap = Math.max(worstGap, now - last);
        last = now;
        ticks += 1;
      }, 5);
      let immediates = 0;
      let spinning = true;
      const spin = () => {
        immediates += 1;
        if (spinning) setImmediate(spin);
      };
      setImmediate(spin);
      const started = performance.now();
      try {
        await extractArchive(archive, name, dest, sb.base, { maxBytes: 256 * MIB });
      } finally {
        clearInterval(timer);
        spinning = false;
      }
      const elapsed = performance.now() - started;
      expect(fs.statSync(path.join(dest, 'zeros.bin')).size).toBe(size);
      // The loop turned many times during the extraction and no single stretch of work held it for long.
      expect(immediates).toBeGreaterThan(50);
      expect(ticks).toBeGreaterThan(Math.min(20, elapsed / 50));
      expect(worstGap).toBeLessThan(500);
    });
  }
});

describe('system tar agrees', () => {
  it('extracts the same bytes as `tar -xf` for a benign tar.gz', async () => {
    const { bytes, expected } = await benignTar();
    const gz = compress(bytes, 'tar.gz');
    const { dest } = await extractOk(sb, 'same.tar.gz', gz);
    const ref = path.join(sb.root, 'ref');
    await fsp.mkdir(ref);
    execFileSync('tar', ['-xzf', writeArchive(sb, 'ref.tar.gz', gz), '-C', ref]);
    for (const rel of expected.keys()) {
      expect(fs.readFileSync(path.join(dest, rel)).equals(fs.readFileSync(path.join(ref, rel))), rel).toBe(true);
    }
    await fsp.rm(ref, { recursive: true });
  });
});
