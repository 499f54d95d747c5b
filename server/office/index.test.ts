import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  OFFICE_MAX_FILE_BYTES,
  officeFormat,
  officeToMarkdown,
  PREVIEW_MAX_CHARS,
  sidecarReason,
  type OfficeFormat,
} from './index.js';
import { buildDocx, buildPptx, buildXlsx, buildZip, pShape, wHeading, wordDocumentXml, wPara } from './testing/fixtures.js';
import { sidecarFor } from './testing/sidecar.js';
import { useTmpDir } from './testing/tmpdir.js';

const tmp = useTmpDir();

afterEach(() => {
  vi.restoreAllMocks();
});

async function listing(): Promise<string[]> {
  return (await fs.readdir(tmp.path)).sort();
}

describe('officeFormat', () => {
  it('names the format by extension, case-insensitively', () => {
    expect(['a.docx', 'B.XLSX', 'c.PpTx', 'd.doc', 'e.docx.md', 'docx', '.docx', 'f.xlsm'].map(officeFormat)).toEqual([
      'docx',
      'xlsx',
      'pptx',
      null,
      null,
      null,
      null, // a dot file named `.docx` has no extension
      null,
    ]);
  });
});

describe('writeOfficeSidecar', () => {
  it('writes <name>.md beside the file and describes it', async () => {
    const file = await tmp.write('Résumé.docx', await buildDocx(wHeading(1, 'Café') + wPara('naïve')));
    const sidecar = await sidecarFor(file, 'docx');
    const expected = '# Café\n\nnaïve\n';
    expect(sidecar).toEqual({
      filename: 'Résumé.docx.md',
      path: path.join(tmp.path, 'Résumé.docx.md'),
      size: Buffer.byteLength(expected),
      preview_kind: 'office',
      office_format: 'docx',
    });
    expect(sidecar.size).toBe(expected.length + 2); // é and ï are two bytes each
    expect(await fs.readFile(sidecar.path, 'utf8')).toBe(expected);
  });

  it.each<[OfficeFormat, () => Promise<Buffer>, string]>([
    ['xlsx', () => buildXlsx([{ name: 'S', sheetData: '<row r="1"><c r="A1"><v>42</v></c></row>' }]), '## S\n\n| 42 |\n| --- |\n'],
    ['pptx', () => buildPptx([{ file: 'slide1.xml', shapes: pShape(['Hi'], 'title') }]), '## Slide 1: Hi\n'],
  ])('writes the %s sidecar', async (format, build, expected) => {
    const file = await tmp.write(`f.${format}`, await build());
    const sidecar = await sidecarFor(file, format);
    expect(sidecar.office_format).toBe(format);
    expect(await fs.readFile(sidecar.path, 'utf8')).toBe(expected);
  });

  it('never overwrites an existing <name>.md', async () => {
    const file = await tmp.write('a.docx', await buildDocx(wPara('new')));
    await tmp.write('a.docx.md', 'mine');
    await expect(sidecarFor(file, 'docx')).rejects.toMatchObject({ code: 'EEXIST' });
    expect(await fs.readFile(path.join(tmp.path, 'a.docx.md'), 'utf8')).toBe('mine');
  });

  it('does not follow a symlink at the sidecar path, dangling or not', async () => {
    const file = await tmp.write('a.docx', await buildDocx(wPara('new')));
    const victim = await tmp.write('victim.txt', 'untouched');
    await fs.symlink(victim, `${file}.md`);
    await expect(sidecarFor(file, 'docx')).rejects.toMatchObject({ code: 'EEXIST' });
    expect(await fs.readFile(victim, 'utf8')).toBe('untouched');
    expect((await fs.lstat(`${file}.md`)).isSymbolicLink()).toBe(true);

    await fs.rm(`${file}.md`);
    await fs.symlink(path.join(tmp.path, 'created-through-link.txt'), `${file}.md`);
    await expect(sidecarFor(file, 'docx')).rejects.toMatchObject({ code: 'EEXIST' });
    expect(await listing()).toEqual(['a.docx', 'a.docx.md', 'victim.txt']);
  });

  it('removes the partial sidecar when writing fails, and rethrows', async () => {
    const file = await tmp.write('a.docx', await buildDocx(wPara('text')));
    const probe = await fs.open(file, 'r');
    const proto = Object.getPrototypeOf(probe) as { writeFile: (...args: unknown[]) => Promise<void> };
    await probe.close();
    vi.spyOn(proto, 'writeFile').mockImplementationOnce(async function (this: fs.FileHandle) {
      await this.write(Buffer.from('half'));
      throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
    });
    await expect(sidecarFor(file, 'docx')).rejects.toThrow('no space left on device');
    expect(await listing()).toEqual(['a.docx']);
  });

  const bombs: [string, () => Promise<Buffer>, string][] = [
    [
      '10,001 members',
      () => buildZip(Array.from({ length: 10_001 }, (_, i) => ({ name: `m${i}.png`, data: '', compress: false }))),
      'Zip has too many members (10001 > 10000)',
    ],
    [
      'a member over 4 MB',
      () => buildZip([{ name: 'word/document.xml', data: crypto.randomBytes(4_000_001), compress: false }]),
      'Zip member too large: word/document.xml (> 4000000 bytes)',
    ],
    [
      '3 MB of zeros deflated (ratio over 200)',
      () => buildZip([{ name: 'word/document.xml', data: Buffer.alloc(3_000_000) }]),
      'Zip member compression ratio above 200: word/document.xml',
    ],
    [
      'over 8 MB in all',
      () => buildZip([1, 2, 3].map((i) => ({ name: `word/p${i}.xml`, data: crypto.randomBytes(3_000_000) }))),
      'Zip is too large when inflated (> 8000000 bytes)',
    ],
  ];
  it.each(bombs)('refuses %s and leaves no sidecar', async (_label, build, message) => {
    const file = await tmp.write('bomb.docx', await build());
    await expect(sidecarFor(file, 'docx')).rejects.toThrow(message);
    expect(await listing()).toEqual(['bomb.docx']);
  });

  it('says why in plain words: too many parts, too large, possible zip bomb', async () => {
    const reasons: string[] = [];
    for (const [, build] of bombs) {
      const file = await tmp.write('bomb.docx', await build());
      reasons.push(await sidecarFor(file, 'docx').then(() => 'written', sidecarReason));
    }
    expect(reasons).toEqual([
      'too many parts in the file',
      'too large to preview',
      'compressed suspiciously well (possible zip bomb)',
      'too large to preview',
    ]);
  });

  it('converts a deck-sized package: 600 members, 12 MB of media that is never inflated', async () => {
    // Media of any size or ratio is neither inflated nor counted: only the XML parts are.
    const media = Array.from({ length: 600 }, (_, i) => ({ name: `word/media/image${i}.png`, data: Buffer.alloc(i < 4 ? 3_000_000 : 10) }));
    const file = await tmp.write('big.docx', await buildDocx(wPara('still here'), media));
    expect(await sidecarFor(file, 'docx').then((s) => s.filename)).toBe('big.docx.md');
    expect(await fs.readFile(`${file}.md`, 'utf8')).toBe('still here\n');
  });

  const broken: [string, OfficeFormat, () => Promise<Buffer>, string | RegExp][] = [
    [
      'an encrypted file (OLE, not zip)',
      'docx',
      async () => Buffer.concat([Buffer.from('d0cf11e0a1b11ae1', 'hex'), Buffer.alloc(1024)]),
      'Encrypted or legacy Office file (OLE compound document, not a zip)',
    ],
    ['a file that is not a zip', 'xlsx', async () => Buffer.from('hello'), /^Not a readable zip: /],
    [
      'malformed document XML',
      'docx',
      () => buildDocx('', [{ name: 'word/document.xml', data: '<w:document><w:body></w:document>' }]),
      /^Malformed XML in word\/document\.xml/,
    ],
    [
      'a DTD (entity expansion)',
      'docx',
      () =>
        buildDocx('', [
          {
            name: 'word/document.xml',
            data: `<?xml version="1.0"?><!DOCTYPE d [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]>${wordDocumentXml('').replace(/^<\?xml[^>]*\?>\n/, '')}`,
          },
        ]),
      'XML part has a DTD, refused: word/document.xml',
    ],
    ['a package without a main part', 'pptx', () => buildZip([{ name: 'x.xml', data: '<x/>' }]), 'Office file has no main document relationship'],
    [
      'a docx whose main part is missing',
      'docx',
      () =>
        buildZip([
          {
            name: '_rels/.rels',
            data: '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="r" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
          },
        ]),
      /^Word document unreadable: /,
    ],
  ];
  it.each(broken)('throws a clear error for %s and leaves no sidecar', async (_label, format, build, message) => {
    const file = await tmp.write(`broken.${format}`, await build());
    const err = await sidecarFor(file, format).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).name).toBe('OfficeError');
    expect((err as Error).message).toMatch(message);
    expect(await listing()).toEqual([`broken.${format}`]);
  });

  it('refuses an oversized file without reading it into memory', async () => {
    const file = path.join(tmp.path, 'huge.docx');
    await fs.writeFile(file, '');
    await fs.truncate(file, OFFICE_MAX_FILE_BYTES + 1);
    await expect(sidecarFor(file, 'docx')).rejects.toThrow('Office file too large to preview (> 16000000 bytes)');
    expect(await listing()).toEqual(['huge.docx']);
  });

  it('does not read the Office file through a symlink', async () => {
    const real = await tmp.write('real.docx', await buildDocx(wPara('x')));
    const link = path.join(tmp.path, 'link.docx');
    await fs.symlink(real, link);
    await expect(officeToMarkdown(link, 'docx')).rejects.toThrow(/^Office conversion failed: ELOOP/);
  });
});

describe('preview cap', () => {
  it(`cuts the Markdown at ${PREVIEW_MAX_CHARS} characters and appends a notice line`, async () => {
    const paragraphs = Array.from({ length: 1500 }, (_, i) => `Paragraph ${i} ${'lorem ipsum '.repeat(8)}`.trim());
    const full = `${paragraphs.join('\n\n')}\n`;
    expect(full.length).toBeGreaterThan(PREVIEW_MAX_CHARS);
    const file = await tmp.write('long.docx', await buildDocx(paragraphs.map((p) => wPara(p)).join('')));
    const sidecar = await sidecarFor(file, 'docx');
    const written = await fs.readFile(sidecar.path, 'utf8');
    const kept = full.slice(0, PREVIEW_MAX_CHARS);
    expect(written).toBe(`${kept}${kept.endsWith('\n') ? '' : '\n'}\n*[Preview truncated at 120,000 characters]*\n`);
    expect(sidecar.size).toBe(Buffer.byteLength(written));
  });

  it('leaves a document under the cap untouched', async () => {
    // Hex, not one repeated letter: that would deflate past the ratio limit.
    const text = crypto.randomBytes(PREVIEW_MAX_CHARS).toString('hex').slice(0, PREVIEW_MAX_CHARS - 1);
    const file = await tmp.write('short.docx', await buildDocx(wPara(text)));
    expect(await officeToMarkdown(file, 'docx')).toBe(`${text}\n`);
  });
});
