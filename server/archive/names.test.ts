// Member names made portable: every segment of a zip or tar member path passes through portableName, so an
// archive extracts to names that are valid on Windows too and never carry a control character.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { memberSegments } from './names.js';
import { listTree, makeSandbox, type Sandbox } from './testing/fixtures.js';
import { extractOk } from './testing/harness.js';
import { buildTar } from './testing/tar-builder.js';
import { buildZip } from './testing/zip-builder.js';

describe('memberSegments makes each segment portable', () => {
  it.each([
    ['CON', ['_CON']],
    ['con.txt', ['_con.txt']],
    ['docs/Aux.tar.gz', ['docs', '_Aux.tar.gz']],
    ['NUL/readme.md', ['_NUL', 'readme.md']],
    ['COM1/LPT9.log', ['_COM1', '_LPT9.log']],
    ['com¹.txt', ['_com¹.txt']],
    ['LPT².txt', ['_LPT².txt']],
    ['lpt³', ['_lpt³']],
    ['CONIN$', ['_CONIN$']],
    ['CON .txt', ['_CON .txt']],
    ['dir./file.', ['dir_', 'file_']],
    ['dir /file ', ['dir_', 'file_']],
    ['a/.../b', ['a', '___', 'b']],
    ['x\n2026-01-01T00:00:00.000Z ERROR forged', ['x_2026-01-01T00:00:00.000Z ERROR forged']],
    ['line\r\nbreak/tab\there', ['line__break', 'tab_here']],
    ['esc\u001b[2J/del\u007f/c1\u0085', ['esc_[2J', 'del_', 'c1_']],
    ['ls\u2028/ps\u2029x', ['ls_', 'ps_x']],
    ['..config.txt', ['..config.txt']],
    ['CONSOLE/COM10/xNUL', ['CONSOLE', 'COM10', 'xNUL']],
    ['report (final).pdf', ['report (final).pdf']],
  ])('%j → %j', (name, segments) => {
    expect(memberSegments('tar', name, 'linux')).toEqual(segments);
    // On Windows a `:` (an NTFS stream) is refused outright; everything else is judged the same way.
    if (!name.includes(':')) expect(memberSegments('zip', name, 'win32')).toEqual(segments);
  });

  it('still blocks climbing out before making names portable', () => {
    expect(() => memberSegments('zip', '../CON', 'linux')).toThrow('Zip-slip blocked: ../CON');
    expect(() => memberSegments('tar', 'a\0b', 'linux')).toThrow(/^Tar-slip blocked: /);
  });

  it('does not shorten long segments (the file system limit applies)', () => {
    const long = 'CON.' + 'x'.repeat(240);
    expect(memberSegments('tar', long, 'linux')).toEqual(['_' + long]);
  });
});

describe('extraction writes the portable names', () => {
  let sb: Sandbox;
  beforeEach(async () => {
    sb = await makeSandbox();
  });
  afterEach(async () => {
    await sb.cleanup();
  });

  const hostile = [
    { name: 'CON', content: Buffer.from('con') },
    { name: 'sub./aux.txt', content: Buffer.from('aux') },
    { name: 'tail. ', content: Buffer.from('tail') },
    { name: 'x\ny\u2028z', content: Buffer.from('ctl') },
    { name: 'COM³.log', content: Buffer.from('com') },
  ];
  const portable = ['_COM³.log', '_CON', 'sub_/', 'sub_/_aux.txt', 'tail__', 'x_y_z'];

  it('from a tar', async () => {
    const { dest, result } = await extractOk(sb, 'names.tar', buildTar(hostile));
    expect(await listTree(dest)).toEqual(portable);
    expect([...result.files].sort()).toEqual(['names/_COM³.log', 'names/_CON', 'names/sub_/_aux.txt', 'names/tail__', 'names/x_y_z']);
    expect(fs.readFileSync(path.join(dest, 'x_y_z'), 'utf8')).toBe('ctl');
  });

  it('from a zip', async () => {
    const { dest } = await extractOk(sb, 'names.zip', buildZip(hostile));
    expect(await listTree(dest)).toEqual(portable);
    expect(fs.readFileSync(path.join(dest, '_CON'), 'utf8')).toBe('con');
  });

  it('a member that becomes the name of an earlier one is skipped, never overwrites', async () => {
    const { dest, result } = await extractOk(
      sb,
      'clash.tar',
      buildTar([
        { name: '_CON', content: Buffer.from('first') },
        { name: 'con', content: Buffer.from('second') },
        { name: 'CON', content: Buffer.from('third') },
      ]),
    );
    expect(result.files).toEqual(['clash/_CON', 'clash/_con']);
    expect(fs.readFileSync(path.join(dest, '_CON'), 'utf8')).toBe('first');
  });
});
