// classify: bytes first, the name only where bytes cannot tell (issue 35). Each row is a file as people have
// them: a PNG under any name, text under an image's name, the containers only the name tells apart.
import { describe, expect, it } from 'vitest';
import { buildPng } from '../../e2e/helpers/png.js';
import { classify, unknownKind, type Kind } from './index.js';

const PNG = buildPng(2, 2, () => [10, 20, 30]);
const ZIP = Buffer.from('PK\x03\x04\x14\x00\x00\x00', 'latin1');
const tar = (): Buffer => {
  const b = Buffer.alloc(1024);
  b.write('notes.txt', 0, 'latin1');
  b.write('ustar', 257, 'latin1');
  return b;
};
const WAV = Buffer.concat([Buffer.from('RIFF', 'latin1'), Buffer.from([36, 0, 0, 0]), Buffer.from('WAVEfmt ', 'latin1'), Buffer.alloc(24)]);
const NOISE = Buffer.from([0x00, 0x13, 0xfe, 0x01, 0x00, 0x00, 0x9c, 0x02, 0x00, 0x07]);

const ROWS: [string, Buffer, Kind][] = [
  ['scan', PNG, { kind: 'image', mime: 'image/png' }],
  ['shot.dat', PNG, { kind: 'image', mime: 'image/png' }],
  ['notes.png', Buffer.from('plain text\n'), { kind: 'text' }],
  ['memo.wav', Buffer.from('a text file named like audio\n'), { kind: 'text' }],
  ['id3.txt', Buffer.from('ID3 tags are where an MP3 keeps its title.\n'), { kind: 'text' }],
  ['report', Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1'), { kind: 'pdf' }],
  ['report.docx', ZIP, { kind: 'office', format: 'docx' }],
  ['sheet.xlsx', ZIP, { kind: 'office', format: 'xlsx' }],
  ['bundle.zip', ZIP, { kind: 'archive', format: 'zip' }],
  ['download', ZIP, { kind: 'archive', format: 'zip' }],
  ['report.docx.txt', Buffer.from('not a zip at all\n'), { kind: 'text' }],
  ['backup', tar(), { kind: 'archive', format: 'tar' }],
  ['logs.tar.gz', Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0]), { kind: 'archive', format: 'tar.gz' }],
  ['logs.tgz', Buffer.from('plain text named like a tarball\n'), { kind: 'text' }],
  ['data.gz', Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0]), { kind: 'binary' }],
  ['notes.zip', Buffer.from([0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c, 0, 4]), { kind: 'archive', format: '7z' }],
  ['photos', Buffer.from([0x52, 0x61, 0x72, 0x21, 0x1a, 0x07, 0x01, 0x00]), { kind: 'archive', format: 'rar' }],
  ['voice', WAV, { kind: 'audio' }],
  ['voice.mp3', NOISE, { kind: 'audio' }],
  ['blob.bin', NOISE, { kind: 'binary' }],
  ['empty.png', Buffer.alloc(0), { kind: 'text' }],
];

describe('classify', () => {
  it.each(ROWS)('%s', (name, head, kind) => {
    expect(classify(name, head)).toEqual(kind);
  });
});

// The compiler holds every dispatcher to every kind: a switch that leaves one undecided does not type-check
// (`npx tsc -p tsconfig.check.json` fails if this expected error ever goes away).
function undecided(k: Kind): string {
  switch (k.kind) {
    case 'text':
    case 'pdf':
    case 'office':
    case 'image':
    case 'audio':
    case 'archive':
      return k.kind;
    default:
      // @ts-expect-error 'binary' is not decided, so `k` is not `never`
      return unknownKind(k);
  }
}

describe('unknownKind', () => {
  it('throws when a kind reaches it at run time', () => {
    expect(undecided({ kind: 'text' })).toBe('text');
    expect(() => undecided({ kind: 'binary' })).toThrow('no reader decided kind {"kind":"binary"}');
  });
});
