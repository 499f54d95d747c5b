// Text that lives outside a document's main flow but that a reader of the file still sees: chart titles,
// image descriptions (alt text) and the paragraphs of Word and DrawingML parts (headers, footers, notes).
// Shared by the three converters, which each put it under its own heading.
import type { ZipMembers } from './guarded-zip.js';
import { collapseWhitespace } from './markdown.js';
import { findPart, hasType, isRelationshipNs, readRelationships, readXmlPart, type Relationship } from './opc.js';
import { attr, childElements, findAll, firstChild, isElement, textContent, type XmlElement } from './xml.js';

/** One line of raw text from a Word paragraph (`w:p`): its text, tabs and breaks as spaces. */
export function wordParagraphText(p: XmlElement): string {
  let out = '';
  const walk = (el: XmlElement) => {
    for (const child of el.children) {
      if (!isElement(child)) continue;
      if (child.local === 't') out += textContent(child);
      else if (child.local === 'tab' || child.local === 'br' || child.local === 'cr') out += ' ';
      // Deleted text of a tracked change is not in the document; field codes are not text.
      else if (child.local !== 'del' && child.local !== 'instrText' && child.local !== 'delText') walk(child);
    }
  };
  walk(p);
  return collapseWhitespace(out);
}

/** One line of raw text from a DrawingML paragraph (`a:p`): runs, fields and line breaks. */
export function drawingParagraphText(p: XmlElement): string {
  let out = '';
  for (const child of p.children) {
    if (!isElement(child)) continue;
    if (child.local === 'r' || child.local === 'fld') out += childElements(child, 't').map(textContent).join('');
    else if (child.local === 'br') out += ' ';
  }
  return collapseWhitespace(out);
}

/** The non-empty paragraphs of a Word part (a header, a footer, a comment), in document order. */
export function wordParagraphs(el: XmlElement): string[] {
  return findAll(el, 'p').map(wordParagraphText).filter(Boolean);
}

/** Image descriptions in `el`: the `descr` (else `title`) of each drawing's non-visual properties. */
export function altTexts(el: XmlElement): string[] {
  // A Word drawing carries its description twice (wp:docPr and the picture's own pic:cNvPr): where there are
  // drawings, their docPr alone counts.
  const docPr = findAll(el, 'docPr');
  return (docPr.length ? docPr : findAll(el, 'cNvPr'))
    .map((props) => collapseWhitespace(attr(props, 'descr') ?? attr(props, 'title') ?? ''))
    .filter(Boolean);
}

/** Titles of the charts that `el` (in part `part`) embeds, in order; untitled charts are left out. */
export function chartTitles(members: ZipMembers, part: string, el: XmlElement, rels?: Relationship[]): string[] {
  const refs = findAll(el, 'chart').filter((c) => c.ns.endsWith('/chart'));
  if (refs.length === 0) return [];
  const all = rels ?? readRelationships(members, part);
  const out: string[] = [];
  for (const ref of refs) {
    const id = attr(ref, 'id', isRelationshipNs);
    const rel = all.find((r) => r.id === id && !r.external && hasType(r, 'chart'));
    const title = rel && findPart(members, rel.target) ? chartTitle(readXmlPart(members, rel.target)) : '';
    if (title) out.push(title);
  }
  return out;
}

/** A chart part's own title: rich text, or the cached value of a title taken from a cell. */
export function chartTitle(chartSpace: XmlElement): string {
  const chart = firstChild(chartSpace, 'chart');
  const title = chart && firstChild(chart, 'title');
  if (!title) return '';
  const rich = findAll(title, 'p').map(drawingParagraphText).filter(Boolean);
  if (rich.length) return rich.join(' ');
  return collapseWhitespace(findAll(title, 'v').map(textContent).join(' '));
}

/** Lines shown once, in first-seen order (Word repeats a header for first, odd and even pages). */
export function unique(lines: readonly string[]): string[] {
  return [...new Set(lines)];
}
