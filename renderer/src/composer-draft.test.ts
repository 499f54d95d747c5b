import { describe, expect, it } from 'vitest';
import type { ExtractedAttachment, FileAttachment } from './api.js';
import { carriedChips } from './composer-draft.js';

const file = (name: string): FileAttachment => ({ kind: 'file', filename: name, path: `/s/att/abc/${name}`, size: 3, mime: 'application/zip', is_image: false });
const extraction = (name: string, over: Partial<ExtractedAttachment> = {}): ExtractedAttachment => ({
  kind: 'extraction',
  name,
  path: `/s/att/abc/${name.replace(/\.zip$/, '')}`,
  extracted: true,
  file_count: 4,
  ...over,
});

describe('carriedChips (Edit puts a sent message back)', () => {
  it('puts an archive and its extraction on one chip by archive_path, wherever the extraction is in the list', () => {
    const zip = file('report.zip');
    const x = extraction('report.zip', { archive_path: zip.path });
    let n = 0;
    const chips = carriedChips(() => ++n, [x, file('notes.txt'), zip], 'abc');
    expect(chips.map((c) => [c.name, c.extract?.sent?.path ?? null])).toEqual([
      ['notes.txt', null],
      ['report.zip', '/s/att/abc/report'],
    ]);
    expect(chips[1]!.extract?.result).toEqual({ ok: true, extracted: 4, files: [], dest: '/s/att/abc/report', skipped: [] });
    expect(chips[1]!.result).toBe(zip);
  });

  it('does not pair by position or name: an extraction naming no archive of the message is a chip of its own', () => {
    const zip = file('report.zip');
    let n = 0;
    const chips = carriedChips(() => ++n, [zip, extraction('report.zip')], 'abc');
    expect(chips.map((c) => [c.name, c.extract ?? null])).toEqual([
      ['report.zip', null],
      ['report.zip', null],
    ]);
  });
});
