import { describe, expect, it } from 'vitest';
import { candidateNames, sanitizeName, splitSuffix } from './names.js';

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
    expect(Array.from(sanitizeName('é'.repeat(300))!)).toHaveLength(200);
    expect(sanitizeName('a'.repeat(250) + '.txt')).toBe('a'.repeat(200));
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
