// The engine against archives made by real tools, compared with what those tools' extractors (unzip, bsdtar)
// produce from the same file: the same regular files, bytes and permission bits; links reported as skipped.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, type Sandbox } from './testing/fixtures.js';
import { extractFails, extractOk } from './testing/harness.js';
import { hasTool, makeSourceTree, regularFiles, run, symlinks } from './testing/real-tools.js';

let sb: Sandbox;
let src: string;
let work: string;

beforeEach(async () => {
  sb = await makeSandbox();
  work = await fsp.mkdtemp(path.join(sb.root, '..', 'satchel-realtools-'));
  src = path.join(work, 'src');
  await fsp.mkdir(src);
  await makeSourceTree(src);
});
afterEach(async () => {
  await sb.cleanup();
  await fsp.rm(work, { recursive: true, force: true });
});

/** Extract `archive` with ours and with `reference`, and expect the same regular files. */
async function sameAsReference(archive: string, reference: (file: string, out: string) => void): Promise<{ skipped: unknown[] }> {
  const refOut = path.join(work, 'reference');
  await fsp.mkdir(refOut);
  reference(archive, refOut);
  const { dest, result } = await extractOk(sb, path.basename(archive), fs.readFileSync(archive));
  const expected = await regularFiles(refOut);
  expect(expected.length).toBeGreaterThan(0);
  expect(await regularFiles(dest)).toEqual(expected);
  const links = await symlinks(refOut);
  for (const link of links) expect(result.skipped).toContainEqual({ name: link, reason: 'symlink' });
  return result;
}
const unzip = (file: string, out: string) => void run('unzip', ['-q', file, '-d', out], work);
const bsdtar = (file: string, out: string) => void run('bsdtar', ['-xf', file, '-C', out], work);

describe('zip archives made by real tools', () => {
  it.skipIf(!hasTool('zip', 'zip') || !hasTool('unzip', 'unzip'))('Info-ZIP `zip -ry`: UTF-8 names without the flag, +x kept, links and empty dirs reported', async () => {
    run('zip', ['-qry', path.join(work, 'info.zip'), '.'], src);
    const result = await sameAsReference(path.join(work, 'info.zip'), unzip);
    const files = await regularFiles(path.join(sb.base, 'info'));
    expect(files.map((f) => f.path)).toContain('café.md');
    expect(files.map((f) => f.path)).toContain('中文文件.md');
    expect(files.find((f) => f.path === 'configure')!.mode).toBe(0o755);
    expect(files.find((f) => f.path === 'café.md')!.mode).toBe(0o644);
    expect(result.skipped).toContainEqual({ name: 'empty/', reason: 'directory-only' });
    expect(result.skipped).not.toContainEqual({ name: 'sub/', reason: 'directory-only' });
  });

  it.skipIf(!hasTool('7z', 'p7zip-full') || !hasTool('unzip', 'unzip'))('7-Zip `7z a -tzip`', async () => {
    run('7z', ['a', '-tzip', '-bd', path.join(work, 'seven.zip'), '.'], src);
    await sameAsReference(path.join(work, 'seven.zip'), unzip);
  });

  it.skipIf(!hasTool('zip', 'zip') || !hasTool('unzip', 'unzip'))('a newline after the end record is read as unzip reads it', async () => {
    run('zip', ['-qr', path.join(work, 'trailing.zip'), '.'], src);
    fs.appendFileSync(path.join(work, 'trailing.zip'), '\n');
    await sameAsReference(path.join(work, 'trailing.zip'), (file, out) => {
      // unzip warns about the extra byte (exit status 1) and extracts everything.
      try {
        unzip(file, out);
      } catch (err) {
        if ((err as { status?: number }).status !== 1) throw err;
      }
    });
  });

  it.skipIf(!hasTool('zip', 'zip'))('`zip -P` members are a named 400', async () => {
    run('zip', ['-q', '-P', 'secret', path.join(work, 'secret.zip'), 'café.md'], src);
    await extractFails(sb, 'secret.zip', fs.readFileSync(path.join(work, 'secret.zip')), 'Encrypted archive members are not supported: café.md');
  });

  it.skipIf(!hasTool('7z', 'p7zip-full'))('7-Zip AES members, Deflate64 and BZip2 are named 400s', async () => {
    run('7z', ['a', '-tzip', '-bd', '-psecret', '-mem=AES256', path.join(work, 'aes.zip'), 'configure'], src);
    await extractFails(sb, 'aes.zip', fs.readFileSync(path.join(work, 'aes.zip')), 'Encrypted archive members are not supported: configure');
    // A member that compresses (7-Zip stores the tiny ones whatever the method asked for).
    run('7z', ['a', '-tzip', '-bd', '-mm=Deflate64', path.join(work, 'd64.zip'), 'sub/deeper/notes.txt'], src);
    await extractFails(sb, 'd64.zip', fs.readFileSync(path.join(work, 'd64.zip')), 'Unsupported compression method (Deflate64) in sub/deeper/notes.txt');
    run('7z', ['a', '-tzip', '-bd', '-mm=BZip2', path.join(work, 'bz.zip'), 'sub/deeper/notes.txt'], src);
    await extractFails(sb, 'bz.zip', fs.readFileSync(path.join(work, 'bz.zip')), 'Unsupported compression method (BZIP2) in sub/deeper/notes.txt');
  });
});

describe('tar archives made by real tools', () => {
  const gnu = (args: string[], out: string) => run('tar', [...args, '-f', out, '.'], src);
  const cases: Array<{ label: string; file: string; make: (out: string) => void; needs: Array<[string, string]> }> = [
    { label: 'GNU tar (gnu format)', file: 'gnu.tar', make: (o) => gnu(['-c', '--format=gnu'], o), needs: [] },
    { label: 'GNU tar --format=pax', file: 'pax.tar', make: (o) => gnu(['-c', '--format=pax'], o), needs: [] },
    { label: 'bsdtar', file: 'bsd.tar', make: (o) => run('bsdtar', ['-cf', o, '.'], src), needs: [['bsdtar', 'libarchive-tools']] },
    { label: 'GNU tar | pigz', file: 'pigz.tar.gz', make: (o) => fs.writeFileSync(o, run('pigz', [], src, run('tar', ['-cf', '-', '.'], src))), needs: [['pigz', 'pigz']] },
    { label: 'GNU tar | pbzip2', file: 'p.tar.bz2', make: (o) => fs.writeFileSync(o, run('pbzip2', ['-c'], src, run('tar', ['-cf', '-', '.'], src))), needs: [['pbzip2', 'pbzip2']] },
    { label: 'GNU tar | pixz', file: 'pixz.tar.xz', make: (o) => fs.writeFileSync(o, run('pixz', [], src, run('tar', ['-cf', '-', '.'], src))), needs: [['pixz', 'pixz']] },
    { label: 'xz --check=crc32', file: 'c32.tar.xz', make: (o) => fs.writeFileSync(o, run('xz', ['--check=crc32'], src, run('tar', ['-cf', '-', '.'], src))), needs: [['xz', 'xz-utils']] },
    { label: 'xz --check=none', file: 'none.tar.xz', make: (o) => fs.writeFileSync(o, run('xz', ['--check=none'], src, run('tar', ['-cf', '-', '.'], src))), needs: [['xz', 'xz-utils']] },
    { label: 'xz (crc64)', file: 'c64.tar.xz', make: (o) => fs.writeFileSync(o, run('xz', ['-9'], src, run('tar', ['-cf', '-', '.'], src))), needs: [['xz', 'xz-utils']] },
  ];
  for (const c of cases) {
    const missing = !hasTool('bsdtar', 'libarchive-tools') || c.needs.some(([cmd, pkg]) => !hasTool(cmd, pkg));
    it.skipIf(missing)(`${c.label}: the tree bsdtar extracts`, async () => {
      c.make(path.join(work, c.file));
      await sameAsReference(path.join(work, c.file), bsdtar);
    });
  }

  it('a GNU tar hard link to an extracted member is written as a copy', async () => {
    await fsp.link(path.join(src, 'configure'), path.join(src, 'configure-again'));
    run('tar', ['-cf', path.join(work, 'hard.tar'), 'configure', 'configure-again'], src);
    const { dest, result } = await extractOk(sb, 'hard.tar', fs.readFileSync(path.join(work, 'hard.tar')));
    const files = await regularFiles(dest);
    expect(files.map((f) => [f.path, f.mode])).toEqual([
      ['configure', 0o755],
      ['configure-again', 0o755],
    ]);
    expect(files[0]!.bytes).toBe(files[1]!.bytes);
    expect(result.skipped).toEqual([]);
  });

  it('a hard link to a member outside the archive is reported, not followed', async () => {
    await fsp.link(path.join(src, 'configure'), path.join(src, 'configure-again'));
    run('tar', ['-cf', path.join(work, 'orphan.tar'), '--hard-dereference', 'configure'], src);
    // `configure-again` alone: GNU tar stores it as a link only when its target is in the archive, so the
    // target is named in the header but excluded from the data by deleting it afterwards.
    run('tar', ['-cf', path.join(work, 'orphan.tar'), 'configure', 'configure-again'], src);
    run('tar', ['--delete', '-f', path.join(work, 'orphan.tar'), 'configure'], src);
    const { result } = await extractOk(sb, 'orphan.tar', fs.readFileSync(path.join(work, 'orphan.tar')));
    expect(result.files).toEqual([]);
    expect(result.skipped).toEqual([{ name: 'configure-again', reason: 'hardlink' }]);
  });

  it.skipIf(!hasTool('bsdtar', 'libarchive-tools'))('an empty tar (GNU tar and bsdtar) is 0 files, like an empty zip', async () => {
    run('tar', ['-cf', path.join(work, 'empty.tar'), '-T', '/dev/null'], work);
    expect((await extractOk(sb, 'empty.tar', fs.readFileSync(path.join(work, 'empty.tar')))).result).toEqual({ extracted: 0, files: [], skipped: [] });
    run('bsdtar', ['-cf', path.join(work, 'empty2.tar'), '-T', '/dev/null'], work);
    expect((await extractOk(sb, 'empty2.tar', fs.readFileSync(path.join(work, 'empty2.tar')))).result.extracted).toBe(0);
  });

  it('GNU and PAX sparse members are skipped with the reason `sparse` under their real name', async () => {
    const img = path.join(src, 'disk.img');
    const fd = fs.openSync(img, 'w');
    fs.writeSync(fd, 'data', 5_000_000);
    fs.closeSync(fd);
    for (const format of ['gnu', 'pax']) {
      const file = `sparse-${format}.tar`;
      run('tar', ['--sparse', `--format=${format}`, '-cf', path.join(work, file), 'disk.img', 'café.md'], src);
      const { result } = await extractOk(sb, file, fs.readFileSync(path.join(work, file)));
      expect(result.files).toEqual([`sparse-${format}/café.md`]);
      expect(result.skipped).toEqual([{ name: 'disk.img', reason: 'sparse' }]);
    }
  });

  it.skipIf(!hasTool('xz', 'xz-utils'))('xz options the decoder lacks are a 400 that names them', async () => {
    const tarBytes = run('tar', ['-cf', '-', '.'], src);
    fs.writeFileSync(path.join(work, 'sha.tar.xz'), run('xz', ['--check=sha256'], work, tarBytes));
    await extractFails(sb, 'sha.tar.xz', fs.readFileSync(path.join(work, 'sha.tar.xz')), /^Unsupported xz option \(SHA-256 check\)/);
    fs.writeFileSync(path.join(work, 'x86.tar.xz'), run('xz', ['--x86', '--lzma2'], work, tarBytes));
    await extractFails(sb, 'x86.tar.xz', fs.readFileSync(path.join(work, 'x86.tar.xz')), /^Unsupported xz option \(x86 BCJ filter\)/);
  });
});

describe('permission bits', () => {
  it('set-uid, set-gid, sticky and group/other write never survive; the umask applies', async () => {
    await fsp.writeFile(path.join(src, 'wild'), 'x');
    run('tar', ['--mode=6777', '-cf', path.join(work, 'wild.tar'), 'wild'], src);
    run('tar', ['--mode=u+x', '-cf', path.join(work, 'exec.tar'), 'café.md'], src);
    const { dest } = await extractOk(sb, 'wild.tar', fs.readFileSync(path.join(work, 'wild.tar')));
    expect(fs.statSync(path.join(dest, 'wild')).mode & 0o7777).toBe(0o755 & ~process.umask());
    const previous = process.umask(0o077);
    try {
      const { dest: d2 } = await extractOk(sb, 'exec.tar', fs.readFileSync(path.join(work, 'exec.tar')));
      expect(fs.statSync(path.join(d2, 'café.md')).mode & 0o7777).toBe(0o700);
      run('tar', ['-cf', path.join(work, 'plain.tar'), 'sub'], src);
      const { dest: d3 } = await extractOk(sb, 'plain.tar', fs.readFileSync(path.join(work, 'plain.tar')));
      expect(fs.statSync(path.join(d3, 'sub', 'data.bin')).mode & 0o7777).toBe(0o600);
    } finally {
      process.umask(previous);
    }
  });
});
