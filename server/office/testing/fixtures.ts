// Builders for real, minimal Office packages, written with yazl so tests exercise the same zip reading as
// production. Each builder takes the interesting XML from the test and supplies the boilerplate parts
// (content types, package relationships) an Office application would write.
import yazl from 'yazl';

export interface ZipEntrySpec {
  name: string;
  data: Buffer | string;
  /** Deflate (default) or store. */
  compress?: boolean;
}

export function buildZip(entries: readonly ZipEntrySpec[]): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const e of entries) {
    const data = typeof e.data === 'string' ? Buffer.from(e.data, 'utf8') : e.data;
    if (e.name.endsWith('/')) {
      zip.addEmptyDirectory(e.name, { mtime: new Date(2020, 0, 1) });
      continue;
    }
    zip.addBuffer(data, e.name, { compress: e.compress ?? true, mtime: new Date(2020, 0, 1) });
  }
  zip.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (c: Buffer) => chunks.push(c));
    zip.outputStream.on('error', reject);
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
  });
}

/**
 * Rewrite the uncompressed size that the local and central headers declare for `member`, leaving the data
 * alone: a lying header, as a zip bomb would carry.
 */
export function patchDeclaredSize(zip: Buffer, member: string, declared: number): Buffer {
  const out = Buffer.from(zip);
  const eocd = out.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < 0) throw new Error('no end of central directory');
  let at = out.readUInt32LE(eocd + 16);
  const count = out.readUInt16LE(eocd + 10);
  let patched = false;
  for (let i = 0; i < count; i += 1) {
    if (out.readUInt32LE(at) !== 0x02014b50) throw new Error('bad central directory');
    const nameLength = out.readUInt16LE(at + 28);
    const extraLength = out.readUInt16LE(at + 30);
    const commentLength = out.readUInt16LE(at + 32);
    const name = out.toString('utf8', at + 46, at + 46 + nameLength);
    if (name === member) {
      out.writeUInt32LE(declared, at + 24);
      const local = out.readUInt32LE(at + 42);
      out.writeUInt32LE(declared, local + 22);
      patched = true;
    }
    at += 46 + nameLength + extraLength + commentLength;
  }
  if (!patched) throw new Error(`no member ${member}`);
  return out;
}

const XML_HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const PKG_RELS = 'http://schemas.openxmlformats.org/package/2006/relationships';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const CT = 'http://schemas.openxmlformats.org/package/2006/content-types';

function contentTypes(overrides: Record<string, string>): string {
  const o = Object.entries(overrides)
    .map(([part, type]) => `<Override PartName="/${part}" ContentType="${type}"/>`)
    .join('');
  return (
    `${XML_HEAD}<Types xmlns="${CT}"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>` +
    `<Default Extension="xml" ContentType="application/xml"/>${o}</Types>`
  );
}

export function relsXml(rels: readonly { id: string; type: string; target: string }[]): string {
  const body = rels.map((r) => `<Relationship Id="${r.id}" Type="${REL}/${r.type}" Target="${r.target}"/>`).join('');
  return `${XML_HEAD}<Relationships xmlns="${PKG_RELS}">${body}</Relationships>`;
}

// ---------------------------------------------------------------- Word

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';

export function xmlEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** A run; `bold`/`italic` set the run properties. */
export function wRun(text: string, opts: { bold?: boolean; italic?: boolean } = {}): string {
  const props = `${opts.bold ? '<w:b/>' : ''}${opts.italic ? '<w:i/>' : ''}`;
  return `<w:r>${props ? `<w:rPr>${props}</w:rPr>` : ''}<w:t xml:space="preserve">${xmlEscape(text)}</w:t></w:r>`;
}

/** A paragraph of runs (a plain string is one run), with an optional style and list numbering. */
export function wPara(runs: string | readonly string[], opts: { style?: string; numId?: number; ilvl?: number } = {}): string {
  const content = typeof runs === 'string' ? wRun(runs) : runs.join('');
  const num = opts.numId !== undefined ? `<w:numPr><w:ilvl w:val="${opts.ilvl ?? 0}"/><w:numId w:val="${opts.numId}"/></w:numPr>` : '';
  const style = opts.style ? `<w:pStyle w:val="${opts.style}"/>` : '';
  return `<w:p>${style || num ? `<w:pPr>${style}${num}</w:pPr>` : ''}${content}</w:p>`;
}

export const wHeading = (level: number, text: string) => wPara(text, { style: `Heading${level}` });
/** numId 1 is a bulleted list, numId 2 a numbered one (see the numbering part below). */
export const wBullet = (text: string, ilvl = 0) => wPara(text, { numId: 1, ilvl });
export const wNumbered = (text: string, ilvl = 0) => wPara(text, { numId: 2, ilvl });

export function wTable(rows: readonly (readonly string[])[]): string {
  const tr = rows.map((r) => `<w:tr>${r.map((c) => `<w:tc><w:p>${wRun(c)}</w:p></w:tc>`).join('')}</w:tr>`).join('');
  return `<w:tbl><w:tblPr/><w:tblGrid/>${tr}</w:tbl>`;
}

const WORD_STYLES =
  `${XML_HEAD}<w:styles xmlns:w="${W}">` +
  '<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/></w:style>' +
  [1, 2, 3]
    .map((n) => `<w:style w:type="paragraph" w:styleId="Heading${n}"><w:name w:val="heading ${n}"/><w:basedOn w:val="Normal"/></w:style>`)
    .join('') +
  '</w:styles>';

function abstractNum(id: number, format: string): string {
  const levels = [0, 1, 2]
    .map((l) => `<w:lvl w:ilvl="${l}"><w:start w:val="1"/><w:numFmt w:val="${format}"/><w:lvlText w:val="${format === 'bullet' ? '•' : `%${l + 1}.`}"/></w:lvl>`)
    .join('');
  return `<w:abstractNum w:abstractNumId="${id}">${levels}</w:abstractNum>`;
}

const WORD_NUMBERING =
  `${XML_HEAD}<w:numbering xmlns:w="${W}">${abstractNum(0, 'bullet')}${abstractNum(1, 'decimal')}` +
  '<w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num><w:num w:numId="2"><w:abstractNumId w:val="1"/></w:num></w:numbering>';

/** The document.xml for a body. */
export function wordDocumentXml(body: string): string {
  return `${XML_HEAD}<w:document xmlns:w="${W}" xmlns:r="${REL}"><w:body>${body}<w:sectPr/></w:body></w:document>`;
}

/** A .docx whose body is the given WordprocessingML; `extra` adds or replaces parts. */
export function buildDocx(body: string, extra: readonly ZipEntrySpec[] = []): Promise<Buffer> {
  const parts: ZipEntrySpec[] = [
    {
      name: '[Content_Types].xml',
      data: contentTypes({
        'word/document.xml': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml',
        'word/styles.xml': 'application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml',
        'word/numbering.xml': 'application/vnd.openxmlformats-officedocument.wordprocessingml.numbering+xml',
      }),
    },
    { name: '_rels/.rels', data: relsXml([{ id: 'rId1', type: 'officeDocument', target: 'word/document.xml' }]) },
    { name: 'word/document.xml', data: wordDocumentXml(body) },
    {
      name: 'word/_rels/document.xml.rels',
      data: relsXml([
        { id: 'rId1', type: 'styles', target: 'styles.xml' },
        { id: 'rId2', type: 'numbering', target: 'numbering.xml' },
      ]),
    },
    { name: 'word/styles.xml', data: WORD_STYLES },
    { name: 'word/numbering.xml', data: WORD_NUMBERING },
  ];
  return buildZip(mergeParts(parts, extra));
}

function mergeParts(base: readonly ZipEntrySpec[], extra: readonly ZipEntrySpec[]): ZipEntrySpec[] {
  const replaced = new Set(extra.map((e) => e.name));
  return [...base.filter((p) => !replaced.has(p.name)), ...extra];
}

// ---------------------------------------------------------------- Excel

const S = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';

export interface SheetSpec {
  name: string;
  /** The inner XML of `<sheetData>`. */
  sheetData: string;
}

/** A .xlsx with the given sheets (in workbook order) and, when given, `<si>` items for the shared strings. */
export function buildXlsx(sheets: readonly SheetSpec[], sharedItems?: readonly string[], extra: readonly ZipEntrySpec[] = []): Promise<Buffer> {
  const sheetList = sheets
    .map((s, i) => `<sheet name="${xmlEscape(s.name)}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`)
    .join('');
  const rels = sheets.map((_, i) => ({ id: `rId${i + 1}`, type: 'worksheet', target: `worksheets/sheet${i + 1}.xml` }));
  if (sharedItems) rels.push({ id: 'rIdS', type: 'sharedStrings', target: 'sharedStrings.xml' });
  const parts: ZipEntrySpec[] = [
    {
      name: '[Content_Types].xml',
      data: contentTypes({ 'xl/workbook.xml': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml' }),
    },
    { name: '_rels/.rels', data: relsXml([{ id: 'rId1', type: 'officeDocument', target: 'xl/workbook.xml' }]) },
    { name: 'xl/workbook.xml', data: `${XML_HEAD}<workbook xmlns="${S}" xmlns:r="${REL}"><sheets>${sheetList}</sheets></workbook>` },
    { name: 'xl/_rels/workbook.xml.rels', data: relsXml(rels) },
    ...sheets.map((s, i) => ({
      name: `xl/worksheets/sheet${i + 1}.xml`,
      data: `${XML_HEAD}<worksheet xmlns="${S}" xmlns:r="${REL}"><sheetData>${s.sheetData}</sheetData></worksheet>`,
    })),
  ];
  if (sharedItems) {
    parts.push({
      name: 'xl/sharedStrings.xml',
      data: `${XML_HEAD}<sst xmlns="${S}" count="${sharedItems.length}" uniqueCount="${sharedItems.length}">${sharedItems.join('')}</sst>`,
    });
  }
  return buildZip(mergeParts(parts, extra));
}

// ---------------------------------------------------------------- PowerPoint

const P = 'http://schemas.openxmlformats.org/presentationml/2006/main';
const A = 'http://schemas.openxmlformats.org/drawingml/2006/main';

export interface SlideSpec {
  /** File name under ppt/slides/, so file order can differ from presentation order. */
  file: string;
  /** The inner XML of `<p:spTree>`. */
  shapes: string;
}

function aPara(text: string, lvl = 0): string {
  return `<a:p>${lvl ? `<a:pPr lvl="${lvl}"/>` : ''}<a:r><a:rPr lang="en-US"/><a:t>${xmlEscape(text)}</a:t></a:r></a:p>`;
}

/** A shape; `placeholder` is the `<p:ph type>` (e.g. `title`, `body`), omitted for a plain text box. */
export function pShape(paragraphs: readonly (string | { text: string; lvl: number })[], placeholder?: string): string {
  const ph = placeholder ? `<p:ph type="${placeholder}"/>` : '';
  const paras = paragraphs.map((p) => (typeof p === 'string' ? aPara(p) : aPara(p.text, p.lvl))).join('');
  return (
    `<p:sp><p:nvSpPr><p:cNvPr id="2" name="Shape"/><p:cNvSpPr/><p:nvPr>${ph}</p:nvPr></p:nvSpPr><p:spPr/>` +
    `<p:txBody><a:bodyPr/><a:lstStyle/>${paras}</p:txBody></p:sp>`
  );
}

export function pTable(rows: readonly (readonly string[])[]): string {
  const tr = rows
    .map((r) => `<a:tr h="370840">${r.map((c) => `<a:tc><a:txBody><a:bodyPr/>${aPara(c)}</a:txBody><a:tcPr/></a:tc>`).join('')}</a:tr>`)
    .join('');
  return (
    '<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id="9" name="Table"/><p:cNvGraphicFramePr/><p:nvPr/></p:nvGraphicFramePr>' +
    `<p:xfrm/><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/table"><a:tbl><a:tblGrid/>${tr}</a:tbl></a:graphicData></a:graphic></p:graphicFrame>`
  );
}

export function slideXml(shapes: string): string {
  return (
    `${XML_HEAD}<p:sld xmlns:a="${A}" xmlns:r="${REL}" xmlns:p="${P}"><p:cSld><p:spTree>` +
    '<p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/>' +
    `${shapes}</p:spTree></p:cSld></p:sld>`
  );
}

/** A .pptx whose slides appear in the given order. */
export function buildPptx(slides: readonly SlideSpec[], extra: readonly ZipEntrySpec[] = []): Promise<Buffer> {
  const ids = slides.map((_, i) => `<p:sldId id="${256 + i}" r:id="rId${i + 2}"/>`).join('');
  const parts: ZipEntrySpec[] = [
    {
      name: '[Content_Types].xml',
      data: contentTypes({ 'ppt/presentation.xml': 'application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml' }),
    },
    { name: '_rels/.rels', data: relsXml([{ id: 'rId1', type: 'officeDocument', target: 'ppt/presentation.xml' }]) },
    {
      name: 'ppt/presentation.xml',
      data: `${XML_HEAD}<p:presentation xmlns:a="${A}" xmlns:r="${REL}" xmlns:p="${P}"><p:sldIdLst>${ids}</p:sldIdLst></p:presentation>`,
    },
    {
      name: 'ppt/_rels/presentation.xml.rels',
      data: relsXml(slides.map((s, i) => ({ id: `rId${i + 2}`, type: 'slide', target: `slides/${s.file}` }))),
    },
    ...slides.map((s) => ({ name: `ppt/slides/${s.file}`, data: slideXml(s.shapes) })),
  ];
  return buildZip(mergeParts(parts, extra));
}
