// Presentation to Markdown: slides in presentation order (the order of `sldIdLst`, not of file names), each
// as `## Slide N` plus its title, then every other text paragraph as a bullet indented by its outline level,
// and tables as Markdown tables. Then, each under its own heading, the slide's image descriptions, chart
// titles and speaker notes.
import { altTexts, chartTitles, drawingParagraphText } from './extras.js';
import type { ZipMembers } from './guarded-zip.js';
import { escapeInline, escapeLineStarts, collapseWhitespace, heading, joinBlocks, table, tableCell } from './markdown.js';
import { OfficeError } from './office-error.js';
import { findPart, hasType, isRelationshipNs, mainPart, readRelationships, readXmlPart } from './opc.js';
import { attr, childElements, findAll, firstChild, type XmlElement } from './xml.js';

// PowerPoint has nine outline levels (0-8); anything claiming more is clamped so indentation stays sane.
const MAX_OUTLINE_LEVEL = 8;
const TITLE_PLACEHOLDERS = new Set(['title', 'ctrTitle']);
// A notes page repeats the slide's picture, number, date, header and footer; only its body is the notes.
const NOTES_SKIPPED_PLACEHOLDERS = new Set(['sldImg', 'sldNum', 'dt', 'hdr', 'ftr']);

export function pptxToMarkdown(members: ZipMembers): string {
  const presentationPart = mainPart(members);
  const presentation = readXmlPart(members, presentationPart);
  const rels = readRelationships(members, presentationPart);
  const list = firstChild(presentation, 'sldIdLst');
  const blocks: string[] = [];
  let number = 0;
  for (const sldId of list ? childElements(list, 'sldId') : []) {
    const id = attr(sldId, 'id', isRelationshipNs);
    const rel = rels.find((r) => r.id === id && !r.external && hasType(r, 'slide'));
    if (!rel) throw new OfficeError(`Presentation lists a slide it does not contain: ${id ?? '(no id)'}`);
    number += 1;
    const slide = readXmlPart(members, rel.target);
    const slideRels = readRelationships(members, rel.target);
    blocks.push(
      [
        slideMarkdown(slide, number),
        subsection('Image descriptions', altTexts(slide).map((t) => `- ${escapeLineStarts(escapeInline(t))}`)),
        subsection('Charts', chartTitles(members, rel.target, slide, slideRels).map((t) => `- ${escapeLineStarts(escapeInline(t))}`)),
        // Notes are prose: one paragraph each.
        subsection('Notes', [notesLines(members, slideRels).join('\n\n')].filter(Boolean)),
      ]
        .filter(Boolean)
        .join('\n\n'),
    );
  }
  return joinBlocks(blocks);
}

function subsection(title: string, lines: readonly string[]): string {
  return lines.length ? [heading(3, title), '', ...lines].join('\n') : '';
}

/** The speaker notes of a slide: the paragraphs of its notes page's body placeholder(s). */
function notesLines(members: ZipMembers, slideRels: ReturnType<typeof readRelationships>): string[] {
  const rel = slideRels.find((r) => !r.external && hasType(r, 'notesSlide'));
  if (!rel || !findPart(members, rel.target)) return [];
  const tree = findAll(readXmlPart(members, rel.target), 'spTree')[0];
  const lines: string[] = [];
  for (const shape of tree ? shapesOf(tree) : []) {
    // Notes written by other tools (LibreOffice) are plain text boxes, not placeholders: those count too.
    const type = placeholderType(shape);
    if (type !== undefined && NOTES_SKIPPED_PLACEHOLDERS.has(type)) continue;
    const txBody = firstChild(shape, 'txBody');
    for (const p of txBody ? childElements(txBody, 'p') : []) {
      const text = drawingParagraphText(p);
      if (text) lines.push(escapeLineStarts(escapeInline(text)));
    }
  }
  return lines;
}

function slideMarkdown(slide: XmlElement, number: number): string {
  const tree = findAll(slide, 'spTree')[0];
  let title = '';
  const body: string[] = [];
  // Markdown nests a list item only one level below the previous one; a deeper jump would render as code.
  let previousLevel = -1;
  for (const shape of tree ? shapesOf(tree) : []) {
    if (shape.local === 'graphicFrame') {
      const tbl = findAll(shape, 'tbl')[0];
      if (tbl) body.push(`\n${tableOf(tbl)}\n`);
      previousLevel = -1;
      continue;
    }
    const txBody = firstChild(shape, 'txBody');
    if (!txBody) continue;
    const paragraphs = childElements(txBody, 'p');
    if (!title && TITLE_PLACEHOLDERS.has(placeholderType(shape) ?? '')) {
      title = paragraphs.map(paragraphText).filter(Boolean).join(' ');
      continue;
    }
    for (const p of paragraphs) {
      const text = paragraphText(p);
      if (!text) continue;
      const level = Math.min(outlineLevel(p), previousLevel + 1);
      previousLevel = level;
      body.push(`${'  '.repeat(level)}- ${escapeLineStarts(escapeInline(text))}`);
    }
  }
  const head = heading(2, title ? `Slide ${number}: ${escapeInline(collapseWhitespace(title))}` : `Slide ${number}`);
  return [head, '', ...body].join('\n').replace(/\n{3,}/g, '\n\n').trimEnd();
}

/** The paragraph's outline level, 0 when absent; anything out of range is clamped. */
function outlineLevel(p: XmlElement): number {
  const pPr = firstChild(p, 'pPr');
  const level = Math.trunc(Number(pPr ? attr(pPr, 'lvl') : undefined));
  return Number.isFinite(level) ? Math.max(0, Math.min(MAX_OUTLINE_LEVEL, level)) : 0;
}

/** Shapes in drawing order, group shapes flattened. */
function shapesOf(tree: XmlElement): XmlElement[] {
  const out: XmlElement[] = [];
  for (const child of childElements(tree)) {
    if (child.local === 'grpSp') out.push(...shapesOf(child));
    else if (child.local === 'sp' || child.local === 'graphicFrame') out.push(child);
  }
  return out;
}

function placeholderType(shape: XmlElement): string | undefined {
  const nv = firstChild(shape, 'nvSpPr');
  const ph = nv && firstChild(firstChild(nv, 'nvPr') ?? nv, 'ph');
  return ph ? (attr(ph, 'type') ?? 'body') : undefined;
}

const paragraphText = drawingParagraphText;

function tableOf(tbl: XmlElement): string {
  const rows = childElements(tbl, 'tr').map((tr) =>
    childElements(tr, 'tc').map((tc) => {
      const txBody = firstChild(tc, 'txBody');
      const text = txBody ? childElements(txBody, 'p').map(paragraphText).filter(Boolean).join(' ') : '';
      return tableCell(text);
    }),
  );
  return rows.length ? table(rows) : '';
}
