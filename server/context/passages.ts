// A document's whole text cut into passages (issue 36): by page (PDF), slide (.pptx), sheet (.xlsx), section
// (Markdown headings of an Office document or a text file) and archive member, each at most MAX_PASSAGE_CHARS,
// split at paragraph boundaries, so a passage that answers a question can be sent alone with where it is from.
import path from 'node:path';
import type { Part } from '../content/index.js';
import type { ConversationDoc, DocText, Passage } from './types.js';

/**
 * Characters of one passage: about a page of prose (a PDF page runs 2,000–3,500), small enough that several
 * documents' best passages fit beside a conversation, large enough that one holds a paragraph with its context.
 */
export const MAX_PASSAGE_CHARS = 1_200;

/** A page's marker as the PDF reader writes it (content/read/pdf.ts pageMarker / recognizedPageMarker). */
const PAGE_MARKER = /^--- Page \d+( \(recognized by on-device OCR\))? ---\n?/;
/** What an empty page says (content/read/pdf.ts NO_TEXT_ON_PAGE): nothing to retrieve. */
const NO_TEXT = '[no text on this page]';
/** A Markdown heading of levels 1–3 (the Office converter writes `## Slide 3: …`, `## <sheet>`, `# Title`). */
const HEADING = /^(#{1,3}) +(.+?) *#*$/;
const SLIDE = /^Slide (\d+)\b/;

/** Where a unit of text is from, before it is cut into passages. */
interface Place {
  page?: number;
  slide?: number;
  sheet?: string;
  member?: string;
  section?: string;
}

// Passages are made once per document text: DocTexts (doc-text.ts) keeps the text, so a turn over the same
// files cuts nothing again.
const made = new WeakMap<DocText, Map<string, Passage[]>>();

export function passagesOf(doc: ConversationDoc, text: DocText): Passage[] {
  let byKey = made.get(text);
  const cached = byKey?.get(`${doc.key}\0${doc.name}`);
  if (cached) return cached;
  const out: Passage[] = [];
  for (const [place, body] of units(doc.name, text.parts)) {
    for (const chunk of chunks(body)) out.push({ key: doc.key, name: doc.name, ...place, text: chunk, seq: out.length });
  }
  if (!byKey) made.set(text, (byKey = new Map()));
  byKey.set(`${doc.key}\0${doc.name}`, out);
  return out;
}

/** The document's text parts grouped by where they are from, in order; Markdown split at its headings. */
function units(name: string, parts: readonly Part[]): Array<[Place, string]> {
  const out: Array<[Place, string]> = [];
  const ext = path.extname(name).toLowerCase();
  // A paged document's other texts are its reader's header and notes ("Attached PDF … (3 pages):"): nothing to
  // answer from, and a passage's label says the same.
  const paged = parts.some((p) => p.type === 'text' && p.from.page !== undefined);
  for (const p of parts) {
    if (p.type !== 'text' || (paged && p.from.page === undefined)) continue;
    if (p.from.page !== undefined) {
      const body = p.text.replace(PAGE_MARKER, '').trim();
      if (body && body !== NO_TEXT) out.push([{ page: p.from.page }, body]);
      continue;
    }
    const base: Place = p.from.member !== undefined ? { member: p.from.member } : {};
    for (const [heading, body] of sections(p.text)) {
      const place: Place = { ...base };
      const slide = heading && ext === '.pptx' ? SLIDE.exec(heading) : null;
      if (slide) place.slide = Number(slide[1]);
      else if (heading && ext === '.xlsx') place.sheet = heading;
      else if (heading) place.section = heading;
      out.push([place, body]);
    }
  }
  return out;
}

/** Text split before each heading line; each piece with the heading it is under (none before the first). */
function sections(text: string): Array<[string | undefined, string]> {
  const out: Array<[string | undefined, string]> = [];
  let heading: string | undefined;
  let lines: string[] = [];
  const flush = () => {
    const body = lines.join('\n').trim();
    if (body) out.push([heading, body]);
  };
  for (const line of text.split('\n')) {
    const h = HEADING.exec(line);
    // A heading starts a section only at the top levels: `###` under a sheet is its table, kept with it.
    if (h && (h[1]!.length < 3 || heading === undefined)) {
      flush();
      heading = h[2]!.replace(/\\(.)/g, '$1');
      lines = [line];
      continue;
    }
    lines.push(line);
  }
  flush();
  return out;
}

/** `body` in pieces of at most MAX_PASSAGE_CHARS: whole paragraphs while they fit, then lines, then words. */
export function chunks(body: string, max = MAX_PASSAGE_CHARS): string[] {
  const out: string[] = [];
  let current = '';
  const push = (piece: string, sep: string) => {
    if (!piece) return;
    if (current && current.length + sep.length + piece.length <= max) current += sep + piece;
    else {
      if (current) out.push(current);
      current = piece;
    }
  };
  for (const para of body.split(/\n\s*\n/)) {
    const p = para.trim();
    if (p.length <= max) {
      push(p, '\n\n');
      continue;
    }
    // What comes before a table (its sheet's heading) stays with its first rows when it is short.
    const lead = current && current.length <= max / 4 ? current.length + 2 : 0;
    const table = tableChunks(p, max, max - lead);
    if (table) {
      for (const piece of table) push(piece, '\n\n');
      continue;
    }
    for (const line of p.split('\n')) {
      if (line.length <= max) push(line, '\n');
      else for (const piece of hardCut(line, max)) push(piece, ' ');
    }
  }
  if (current) out.push(current);
  return out;
}

/** A Markdown table's separator line, `| --- | :-: |`, under its header row. */
const TABLE_SEPARATOR = /^\|(?:\s*:?-{3,}:?\s*\|)+$/;

/**
 * A Markdown table longer than `max` (a sheet, a Word table) in pieces of whole rows, each under the table's
 * header row and separator: a row sent alone as a passage still says what its columns are ("| name | license |"),
 * for the model reading it and for the ranking, which then matches a question that names a column. The first
 * piece is at most `firstMax` (room left beside what precedes it). Undefined when `para` is not a table, or its
 * header is too long to repeat (over half a passage).
 */
function tableChunks(para: string, max: number, firstMax = max): string[] | undefined {
  const lines = para.split('\n');
  if (lines.length < 3 || !lines[0]!.startsWith('|') || !TABLE_SEPARATOR.test(lines[1]!.trim())) return undefined;
  const head = `${lines[0]}\n${lines[1]}`;
  if (head.length > max / 2) return undefined;
  const out: string[] = [];
  let rows: string[] = [];
  let size = head.length;
  for (const row of lines.slice(2)) {
    // A row too long to sit under the header goes alone, cut like any long line.
    if (head.length + 1 + row.length > max) {
      if (rows.length) out.push([head, ...rows].join('\n'));
      out.push(...hardCut(row, max));
      rows = [];
      size = head.length;
      continue;
    }
    if (rows.length && size + 1 + row.length > (out.length ? max : firstMax)) {
      out.push([head, ...rows].join('\n'));
      rows = [];
      size = head.length;
    }
    rows.push(row);
    size += 1 + row.length;
  }
  if (rows.length) out.push([head, ...rows].join('\n'));
  return out;
}

/** A line longer than `max`, cut at the last space before it when there is one in its second half. */
function hardCut(line: string, max: number): string[] {
  const out: string[] = [];
  let rest = line;
  while (rest.length > max) {
    const space = rest.lastIndexOf(' ', max);
    const at = space > max / 2 ? space : max;
    out.push(rest.slice(0, at).trimEnd());
    rest = rest.slice(at).trimStart();
  }
  if (rest) out.push(rest);
  return out;
}

/** '"report.pdf", page 2', '"deck.pptx", slide 4', '"data.zip", notes/a.txt', '"memo.docx", section "Terms"'. */
export function passageLabel(p: Passage): string {
  const where: string[] = [];
  if (p.member !== undefined) where.push(p.member);
  if (p.page !== undefined) where.push(`page ${p.page}`);
  if (p.slide !== undefined) where.push(`slide ${p.slide}`);
  if (p.sheet !== undefined) where.push(`sheet "${p.sheet}"`);
  if (p.section !== undefined) where.push(`section "${p.section}"`);
  return [`"${p.name}"`, ...where].join(', ');
}

/** "2–3, 5": numbers as runs. */
function runs(numbers: readonly number[]): string {
  const sorted = [...new Set(numbers)].sort((a, b) => a - b);
  const out: string[] = [];
  for (let i = 0; i < sorted.length; i++) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    out.push(j === i ? `${sorted[i]}` : `${sorted[i]}–${sorted[j]}`);
    i = j;
  }
  return out.join(', ');
}

/** Distinct names as words: one quoted, or counted. */
function named(values: readonly string[], one: string, many: string): string | undefined {
  const set = [...new Set(values)];
  if (set.length === 0) return undefined;
  if (set.length === 1) return one ? `${one} "${set[0]}"` : set[0];
  return `${set.length} ${many}`;
}

/** Where passages are from, in words: "pages 2–3", "slide 4", 'sheet "Q3"', "2 sections", "3 passages". */
export function whereOf(passages: readonly Passage[]): string {
  const pages = passages.flatMap((p) => (p.page === undefined ? [] : [p.page]));
  const slides = passages.flatMap((p) => (p.slide === undefined ? [] : [p.slide]));
  const said: string[] = [];
  if (pages.length) said.push(`${new Set(pages).size === 1 ? 'page' : 'pages'} ${runs(pages)}`);
  if (slides.length) said.push(`${new Set(slides).size === 1 ? 'slide' : 'slides'} ${runs(slides)}`);
  const sheet = named(passages.flatMap((p) => (p.sheet === undefined ? [] : [p.sheet])), 'sheet', 'sheets');
  const member = named(passages.flatMap((p) => (p.member === undefined ? [] : [p.member])), '', 'files');
  const section = named(passages.flatMap((p) => (p.section === undefined ? [] : [p.section])), 'section', 'sections');
  for (const s of [sheet, member, section]) if (s) said.push(s);
  if (said.length === 0) return passages.length === 1 ? '1 passage' : `${passages.length} passages`;
  return said.join(', ');
}
