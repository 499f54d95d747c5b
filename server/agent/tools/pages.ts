// What read_file answers of a document's text: all of it from the start, or the pages (slides) asked for, each
// under its label, cut at MAX_TOOL_RESULT_CHARS with a note of what is left and how to ask for it.
import { passageLabel, passagesOf } from '../../context/passages.js';
import type { ConversationDoc, DocText, Passage } from '../../context/types.js';
import { MAX_PAGES_PER_READ, MAX_TOOL_RESULT_CHARS } from './limits.js';

/** Page numbers larger than this are no document's (a 150-page PDF is the largest the store keeps whole). */
const MAX_PAGE_NUMBER = 100_000;
const RANGE = /^\s*(\d{1,6})\s*(?:[-–—]\s*(\d{1,6})\s*)?$/;

export const BAD_RANGE = 'Refused: pages must be a page, a range or a list such as "2", "2-3" or "1,4".';
export const TOO_MANY_PAGES = `Refused: at most ${MAX_PAGES_PER_READ} pages per read; ask for a smaller range such as "2-3".`;

/** The pages `spec` names, in order, or a sentence saying why it names none. Never expands a range past the bound. */
export function parsePages(spec: unknown): number[] | string {
  if (typeof spec !== 'string' && typeof spec !== 'number') return BAD_RANGE;
  const text = String(spec);
  if (text.length > 200) return TOO_MANY_PAGES;
  const pages = new Set<number>();
  for (const piece of text.split(',')) {
    const m = RANGE.exec(piece);
    if (!m) return BAD_RANGE;
    const from = Number(m[1]);
    const to = m[2] === undefined ? from : Number(m[2]);
    if (from < 1 || to < from || to > MAX_PAGE_NUMBER) return BAD_RANGE;
    // Counted before it is expanded: "1-100000" is refused without making 100,000 numbers.
    if (to - from + 1 > MAX_PAGES_PER_READ) return TOO_MANY_PAGES;
    for (let p = from; p <= to; p++) pages.add(p);
    if (pages.size > MAX_PAGES_PER_READ) return TOO_MANY_PAGES;
  }
  return [...pages].sort((a, b) => a - b);
}

const numberOf = (p: Passage): number | undefined => p.page ?? p.slide;

/** "1–12": the numbered pages (slides) a document has, in words. */
function span(numbers: readonly number[]): string {
  return numbers.length === 0 ? 'none' : `${numbers[0]}–${numbers[numbers.length - 1]}`;
}

/** The text read_file answers for `doc`: pages asked for, or the whole text, bounded. */
export function readText(doc: ConversationDoc, text: DocText, pages: number[] | undefined): string {
  if (pages) return readPages(doc, text, pages);
  const body = text.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n\n');
  const images = text.parts.filter((p) => p.type === 'image').length;
  const imageNote = images ? `\n\n[${images} image${images === 1 ? '' : 's'} of "${doc.name}" not shown here: tools answer in text]` : '';
  if (!body.trim()) return `"${doc.name}" has no text (${text.summary.text}).${imageNote}`;
  if (body.length <= MAX_TOOL_RESULT_CHARS) return `${body}${imageNote}`;
  const shown = body.slice(0, MAX_TOOL_RESULT_CHARS);
  return `${shown}\n\n[Shown: the first ${MAX_TOOL_RESULT_CHARS.toLocaleString('en-US')} of ${body.length.toLocaleString('en-US')} characters. ${restHint(doc, text, shown.length)}]${imageNote}`;
}

/** How to ask for what a cut read left: the next pages when the document has them, else search_documents. */
function restHint(doc: ConversationDoc, text: DocText, shownChars: number): string {
  const passages = passagesOf(doc, text);
  let seen = 0;
  for (const p of passages) {
    seen += p.text.length + 2;
    const n = numberOf(p);
    if (seen > shownChars && n !== undefined) return `Ask read_file with pages "${n}-${n + 2}" for more, or search_documents for a passage.`;
  }
  return 'Ask search_documents for the passage you need.';
}

function readPages(doc: ConversationDoc, text: DocText, pages: number[]): string {
  const passages = passagesOf(doc, text);
  const numbered = [...new Set(passages.flatMap((p) => (numberOf(p) === undefined ? [] : [numberOf(p)!])))].sort((a, b) => a - b);
  if (numbered.length === 0) return `Refused: "${doc.name}" has no numbered pages or slides; read it without pages.`;
  const wanted = new Set(pages);
  const chosen = passages.filter((p) => wanted.has(numberOf(p)!));
  const absent = pages.filter((n) => !numbered.includes(n));
  const absentNote = absent.length ? `[No text on page ${absent.join(', ')} of "${doc.name}" (its pages with text: ${span(numbered)}).]` : '';
  if (chosen.length === 0) return absentNote;
  let out = '';
  let last: number | undefined;
  for (const p of chosen) {
    const head = numberOf(p) !== last ? `--- ${passageLabel(p)} ---\n` : '';
    const piece = `${out ? '\n\n' : ''}${head}${p.text}`;
    if (out.length + piece.length > MAX_TOOL_RESULT_CHARS) {
      return `${out}\n\n[Cut at ${MAX_TOOL_RESULT_CHARS.toLocaleString('en-US')} characters, in page ${numberOf(p)}: ask for pages "${numberOf(p)}-${pages[pages.length - 1]}" for the rest.]`;
    }
    out += piece;
    last = numberOf(p);
  }
  return absentNote ? `${out}\n\n${absentNote}` : out;
}
