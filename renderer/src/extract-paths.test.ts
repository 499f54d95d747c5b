import { describe, expect, it } from 'vitest';
import { extractedInto, extractionRelative } from './extract-paths.js';

describe('extractionRelative', () => {
  it('drops the extraction folder the server prefixes, once', () => {
    const files = ['report/report/table.csv', 'report/report/notes/readme.md'];
    expect(extractionRelative(files, '/state/attachments/0123456789ab/report')).toEqual(['report/table.csv', 'report/notes/readme.md']);
  });

  it('keeps a path that does not start with the folder, and lists each path once', () => {
    expect(extractionRelative(['report-1/a.txt', 'report-1/a.txt', 'other/b.txt'], '/x/report-1/')).toEqual(['a.txt', 'other/b.txt']);
  });

  it('leaves paths alone without a destination', () => {
    expect(extractionRelative(['a/b.txt'], undefined)).toEqual(['a/b.txt']);
  });
});

describe('extractedInto', () => {
  it('says how many files, singular or plural', () => {
    expect(extractedInto('report.zip', 3)).toBe('report.zip was extracted into 3 files');
    expect(extractedInto('one.zip', 1)).toBe('one.zip was extracted into 1 file');
    expect(extractedInto('old.zip', undefined)).toBe('old.zip (extracted)');
  });
});
