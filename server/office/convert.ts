// The CPU-heavy half of an Office sidecar: the guarded unzip and the docx/xlsx/pptx → Markdown conversion of
// bytes already read from disk. It runs in convert-worker.ts in the built server, and in-thread under the
// test runner (see index.ts); both paths call this one function, so they cannot drift apart.
import { docxToMarkdown } from './docx.js';
import { readGuardedZip, type ZipLimits, type ZipMembers } from './guarded-zip.js';
import { OfficeError, printable } from './office-error.js';
import { hasType, mainPart, readRelationships } from './opc.js';
import { capPreview } from './markdown.js';
import { pptxToMarkdown } from './pptx.js';
import { parseXmlPart } from './xml.js';
import { xlsxToMarkdown } from './xlsx.js';

import type { OfficeFormat } from '../core/wire.js';

export type { OfficeFormat };
// Real decks carry hundreds of members (slides, layouts, notes, media: 288 and 321 in two real ones); members
// that are not inflated cost a central-directory entry each, so the count can be generous.
export const OFFICE_MAX_MEMBERS = 10_000;
// The zip-bomb guard proper: bytes of XML actually inflated, in all and per part. Media and embedded objects
// are never inflated for a text preview (TEXT_PART), so they do not count.
export const OFFICE_MAX_TOTAL_BYTES = 8_000_000;
export const OFFICE_MAX_MEMBER_BYTES = 4_000_000;
export const OFFICE_MAX_RATIO = 200;
/** The parts a sidecar reads: XML and relationships. Everything else (images, media, embeddings) stays compressed. */
export const TEXT_PART = (lowerName: string): boolean => lowerName.endsWith('.xml') || lowerName.endsWith('.rels');
// The Word parts mammoth reads besides the main document, by relationship type: each must be a guarded part.
const MAMMOTH_PARTS = ['styles', 'numbering', 'footnotes', 'endnotes', 'comments'];
export const PREVIEW_MAX_CHARS = 120_000;
// The whole file is read into memory once, so the guard and mammoth see the very same bytes. A package
// within the inflated limits is at most about that size (stored members) plus headers; twice is headroom,
// and anything larger is padding no Office application writes.
export const OFFICE_MAX_FILE_BYTES = 2 * OFFICE_MAX_TOTAL_BYTES;
const NO_TEXT = '*(No text found in the document.)*\n';

export const OFFICE_LIMITS: ZipLimits = {
  maxMembers: OFFICE_MAX_MEMBERS,
  maxTotalBytes: OFFICE_MAX_TOTAL_BYTES,
  maxMemberBytes: OFFICE_MAX_MEMBER_BYTES,
  maxRatio: OFFICE_MAX_RATIO,
};

/** Guard the package, then convert it to capped Markdown. Throws OfficeError for refused packages; other
 *  errors (parser internals) are wrapped by the caller. */
export async function convertOfficeBuffer(buffer: Buffer, format: OfficeFormat): Promise<string> {
  const members = await readGuardedZip(buffer, OFFICE_LIMITS, TEXT_PART);
  // xlsx and pptx parse every part they read with the strict parser already; mammoth brings its own.
  if (format === 'docx') {
    checkXmlParts(members);
    checkMammothParts(members);
  }
  const markdown =
    format === 'docx'
      ? await docxToMarkdown(buffer, members, PREVIEW_MAX_CHARS)
      : format === 'xlsx'
        ? xlsxToMarkdown(members)
        : pptxToMarkdown(members);
  return capPreview(markdown || NO_TEXT, PREVIEW_MAX_CHARS);
}

/**
 * Every XML part must be well-formed and DTD-free before mammoth, which parses the Word parts with its own
 * XML parser, sees them: entity tricks and malformed parts are refused here, with a clear message.
 */
function checkXmlParts(members: ZipMembers): void {
  for (const [name, bytes] of members) {
    if (name.endsWith('.xml') || name.endsWith('.rels')) parseXmlPart(bytes, name);
  }
}

/**
 * Mammoth unzips the file again and follows the relationships itself, trusting the zip's headers: every part
 * it will read must be named as one the guard inflates (XML), or a bomb could hide behind another name.
 */
function checkMammothParts(members: ZipMembers): void {
  const main = mainPart(members);
  const parts = [main, ...readRelationships(members, main).filter((r) => !r.external && MAMMOTH_PARTS.some((t) => hasType(r, t))).map((r) => r.target)];
  for (const part of parts) {
    if (!TEXT_PART(part.toLowerCase())) throw new OfficeError(`Word part is not named as XML: ${printable(part)}`);
  }
}
