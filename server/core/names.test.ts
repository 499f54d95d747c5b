import { describe, expect, it } from 'vitest';
import { MAX_NAME_BYTES, MAX_NAME_CHARS, candidateNames, fitBytes, givenName, givenWithSuffix, portableName, sanitizeFilename, sanitizeName, splitSuffix } from './names.js';

describe('sanitizeName', () => {
  it.each([
    ['héllo wörld_ß-１.txt', 'héllo_wörld_ß-１.txt'],
    ['../../etc/passwd', 'passwd'],
    ['dir/sub/report (final).pdf', 'report__final_.pdf'],
    ['C:\\Users\\x\\a.txt', 'C__Users_x_a.txt'],
    ['日本語 ファイル.png', '日本語_ファイル.png'],
    ['emoji😀.txt', 'emoji_.txt'],
    ['a;b&c|d$e.sh', 'a_b_c_d_e.sh'],
    ['.hidden', '.hidden'],
  ])('%s → %s', (raw, safe) => {
    expect(sanitizeName(raw)).toBe(safe);
  });

  it.each([[''], ['.'], ['..'], ['...'], ['dir/'], ['x/..']])('rejects %j', (raw) => {
    expect(sanitizeName(raw)).toBeNull();
  });

  it('truncates to 200 code points', () => {
    expect(Array.from(sanitizeName('e'.repeat(300))!)).toHaveLength(200);
    expect(sanitizeName('a'.repeat(250) + '.txt')).toBe('a'.repeat(200));
    // Two bytes each: the file system's byte limit comes first.
    expect(Array.from(sanitizeName('é'.repeat(300))!)).toHaveLength(120);
  });

  it('keeps names that only start with dots', () => {
    expect(sanitizeName('..config.txt')).toBe('..config.txt');
    expect(sanitizeName('...x')).toBe('...x');
  });

  it('refuses a dots-only name with the exact error text', () => {
    expect(() => sanitizeFilename('...')).toThrow('Invalid filename');
  });

  // Windows device names, any extension, any case: prefixed so the file can exist on every platform.
  it.each([
    ['CON', '_CON'],
    ['con.txt', '_con.txt'],
    ['Prn.tar.gz', '_Prn.tar.gz'],
    ['aux', '_aux'],
    ['NUL.', '_NUL_'],
    ['nul.md', '_nul.md'],
    ['COM1', '_COM1'],
    ['com9.log', '_com9.log'],
    ['LPT1.txt', '_LPT1.txt'],
    ['lpt9', '_lpt9'],
    ['COM¹', '_COM¹'],
    ['com².txt', '_com².txt'],
    ['LPT³', '_LPT³'],
    ['dir/CON.txt', '_CON.txt'],
  ])('reserved %j → %j', (raw, safe) => {
    expect(sanitizeName(raw)).toBe(safe);
  });

  it.each([['CONSOLE.txt'], ['CON_x.txt'], ['COM10'], ['LPT'], ['com'], ['xNUL'], ['AUXILIARY'], ['_CON']])('leaves %j alone', (raw) => {
    expect(sanitizeName(raw)).toBe(raw);
  });

  // Windows drops trailing dots and spaces; spaces are already `_` here, dots become `_` one for one.
  it.each([
    ['notes.', 'notes_'],
    ['notes..', 'notes__'],
    ['notes ', 'notes_'],
    ['a.b.', 'a.b_'],
    ['..x.', '..x_'],
  ])('trailing %j → %j', (raw, safe) => {
    expect(sanitizeName(raw)).toBe(safe);
  });

  it('a name cut at 200 code points does not end in a dot', () => {
    const safe = sanitizeName('a'.repeat(MAX_NAME_CHARS - 1) + '.txt')!;
    expect(safe).toBe('a'.repeat(MAX_NAME_CHARS - 1) + '_');
    expect(Array.from(safe)).toHaveLength(MAX_NAME_CHARS);
  });

  it('a prefixed device name still fits in 200 code points', () => {
    const safe = sanitizeName('CON.' + 'x'.repeat(300))!;
    expect(safe.startsWith('_CON.')).toBe(true);
    expect(Array.from(safe)).toHaveLength(MAX_NAME_CHARS);
  });

  // Control characters (C0, DEL, C1, line and paragraph separators) never reach a file name.
  it.each([
    ['a\nb.txt', 'a_b.txt'],
    ['a\r\nb', 'a__b'],
    ['tab\there', 'tab_here'],
    ['esc\u001b[31m', 'esc__31m'],
    ['del\u007f', 'del_'],
    ['c1\u0085\u009b', 'c1__'],
    ['ls\u2028ps\u2029', 'ls_ps_'],
    ['x\n2026-01-01T00:00:00.000Z ERROR forged', 'x_2026-01-01T00_00_00.000Z_ERROR_forged'],
  ])('control %j → %j', (raw, safe) => {
    expect(sanitizeName(raw)).toBe(safe);
  });
});

describe('names that fit a file system (255 bytes a name)', () => {
  it('shortens a long non-Latin name to 240 bytes of UTF-8, keeping its suffix', () => {
    const name = sanitizeName('文'.repeat(150) + '.txt')!;
    expect(name).toBe('文'.repeat(78) + '.txt');
    expect(Buffer.byteLength(name)).toBeLessThanOrEqual(MAX_NAME_BYTES);
  });
  it('leaves a name within the limit alone and never splits a code point', () => {
    expect(fitBytes('é'.repeat(120))).toBe('é'.repeat(120));
    expect(fitBytes('😀'.repeat(70))).toBe('😀'.repeat(60));
    expect(fitBytes('a'.repeat(300) + '.' + 'b'.repeat(30))).toBe('a'.repeat(240));
  });
});

describe('portableName', () => {
  it.each([
    ['con', '_con'],
    ['CON .txt', '_CON .txt'],
    ['Com1.tar.gz', '_Com1.tar.gz'],
    ['CONIN$', '_CONIN$'],
    ['conout$.log', '_conout$.log'],
    ['lpt¹', '_lpt¹'],
    ['dir.', 'dir_'],
    ['dir. .', 'dir___'],
    ['name ', 'name_'],
    ['...', '___'],
    ['a\nb', 'a_b'],
    ['a\u2028b', 'a_b'],
    ['a\u0000b', 'a_b'],
    ['CON\n', 'CON_'],
    ['report (final).pdf', 'report (final).pdf'],
    ['..config.txt', '..config.txt'],
    ['CON foo.txt', 'CON foo.txt'],
  ])('%j → %j', (raw, safe) => {
    expect(portableName(raw)).toBe(safe);
  });
});

describe('duplicate names', () => {
  it('splits like pathlib', () => {
    expect(splitSuffix('pack.tar.gz')).toEqual(['pack.tar', '.gz']);
    expect(splitSuffix('.bashrc')).toEqual(['.bashrc', '']);
    expect(splitSuffix('noext')).toEqual(['noext', '']);
  });
  it('tries the name, then -1 to -999', () => {
    const names = [...candidateNames('photo.jpg')];
    expect(names).toHaveLength(1000);
    expect(names.slice(0, 3)).toEqual(['photo.jpg', 'photo-1.jpg', 'photo-2.jpg']);
    expect(names.at(-1)).toBe('photo-999.jpg');
  });
});

describe('givenName: the name a person gave a file, as shown and told (issue 38, item 4)', () => {
  it('keeps spaces, dashes, accents and every script', () => {
    expect(givenName('Quarterly report Q3.pdf')).toBe('Quarterly report Q3.pdf');
    expect(givenName('Résumé – Ünïcödé 日本語 файл.txt')).toBe('Résumé – Ünïcödé 日本語 файл.txt');
  });

  it('replaces only what no file name may hold: folders, `\\`, control and bidirectional characters, devices', () => {
    expect(givenName('a/b/c d.txt')).toBe('c d.txt');
    expect(givenName('line\nbreak\u0000.txt')).toBe('line_break_.txt');
    expect(givenName('dir\\x.txt')).toBe('dir_x.txt');
    expect(givenName('invoice\u202Efdp.exe')).toBe('invoice_fdp.exe');
    expect(givenName('NUL.txt')).toBe('_NUL.txt');
    expect(givenName('notes. ')).toBe('notes__');
    expect(givenName('..')).toBeNull();
    expect(givenName('   ')).toBeNull();
    expect(givenName('x/')).toBeNull();
  });

  it('is cut as the stored name is: 200 code points, 240 bytes, the suffix kept', () => {
    expect(Array.from(givenName(`${'é'.repeat(300)}.txt`)!).length).toBeLessThanOrEqual(200);
    expect(Buffer.byteLength(givenName(`${'文'.repeat(150)}.txt`)!)).toBeLessThanOrEqual(240);
    expect(givenName(`${'文'.repeat(150)}.txt`)!.endsWith('.txt')).toBe(true);
  });

  it('takes the duplicate suffix the stored name got', () => {
    expect(givenWithSuffix('Q3 report.pdf', 'Q3_report.pdf', 'Q3_report.pdf')).toBe('Q3 report.pdf');
    expect(givenWithSuffix('Q3 report.pdf', 'Q3_report.pdf', 'Q3_report-2.pdf')).toBe('Q3 report-2.pdf');
  });
});
