// Word to Markdown through mammoth: it maps styles to headings, numbering to lists and keeps tables, which is
// the structure a preview needs. Mammoth's own Markdown writer is deprecated and drops tables, so it writes
// HTML and html-to-markdown.ts turns that into Markdown.
// Mammoth leaves out what sits beside the body (headers, footers, comments, image descriptions, chart
// titles) and the equations in it; those are read from the parts directly and added under their own headings.
import { altTexts, chartTitles, unique, wordParagraphs } from './extras.js';
import type { ZipMembers } from './guarded-zip.js';
import { htmlToMarkdown } from './html-to-markdown.js';
import { equations } from './math.js';
import { escapeInline, escapeLineStarts, heading, joinBlocks } from './markdown.js';
import { OfficeError } from './office-error.js';
import { findPart, hasType, mainPart, readRelationships, readXmlPart, type Relationship } from './opc.js';
import { attr, childElements } from './xml.js';

type Mammoth = typeof import('mammoth');
interface LoadedMammoth {
  mammoth: Mammoth;
  noImages: ReturnType<Mammoth['images']['imgElement']>;
}
let loading: Promise<LoadedMammoth> | undefined;

/** mammoth (about 0.1 s to load) on the first Word document rather than at the server's start: most starts
 *  convert none. Loaded once; a failed load is tried again by the next document. */
function loadMammoth(): Promise<LoadedMammoth> {
  loading ??= import('mammoth').then(
    ({ default: mammoth }) => ({
      mammoth,
      // Images are never decoded or embedded: a preview holds text, and a data URI would dwarf it.
      noImages: mammoth.images.imgElement(async () => ({ src: '' })),
    }),
    (err: unknown) => {
      loading = undefined;
      throw err;
    },
  );
  return loading;
}

/**
 * `buffer` must already have passed the zip guard, and `members` be its guarded parts: mammoth unzips it
 * again, trusting its headers. Rendering may stop once the Markdown exceeds `maxChars` (the preview cap);
 * the first `maxChars` are unaffected.
 */
export async function docxToMarkdown(buffer: Buffer, members: ZipMembers, maxChars = Infinity): Promise<string> {
  const body = await bodyMarkdown(buffer, maxChars);
  const main = mainPart(members);
  const rels = readRelationships(members, main);
  const document = readXmlPart(members, main);
  return joinBlocks([
    section('Header', partLines(members, rels, 'header')),
    body.trimEnd(),
    section('Equations', equations(document)),
    section('Footer', partLines(members, rels, 'footer')),
    section('Comments', comments(members, rels)),
    section('Image descriptions', altTexts(document)),
    section('Charts', chartTitles(members, main, document, rels)),
  ]);
}

/** A heading and one paragraph per line; nothing at all when there are no lines. */
function section(title: string, lines: readonly string[]): string {
  return lines.length ? [heading(2, title), ...lines.map((l) => escapeLineStarts(escapeInline(l)))].join('\n\n') : '';
}

/** The distinct paragraphs of every header (or footer) part the document uses. */
function partLines(members: ZipMembers, rels: readonly Relationship[], type: string): string[] {
  const parts = unique(rels.filter((r) => !r.external && hasType(r, type)).map((r) => r.target));
  return unique(parts.filter((p) => findPart(members, p)).flatMap((p) => wordParagraphs(readXmlPart(members, p))));
}

/** Each comment as `Author: text`, in the order of the comments part. */
function comments(members: ZipMembers, rels: readonly Relationship[]): string[] {
  const rel = rels.find((r) => !r.external && hasType(r, 'comments'));
  if (!rel || !findPart(members, rel.target)) return [];
  return childElements(readXmlPart(members, rel.target), 'comment').flatMap((c) => {
    const text = wordParagraphs(c).join(' ');
    const author = attr(c, 'author', (ns) => ns.endsWith('/main'))?.trim();
    return text ? [author ? `${author}: ${text}` : text] : [];
  });
}

async function bodyMarkdown(buffer: Buffer, maxChars: number): Promise<string> {
  const { mammoth, noImages } = await loadMammoth();
  let html: string;
  try {
    const result = await mammoth.convertToHtml(
      { buffer },
      {
        convertImage: noImages,
        // A style map embedded in the file could turn text into arbitrary HTML; only the defaults apply.
        includeEmbeddedStyleMap: false,
        externalFileAccess: false,
      },
    );
    html = result.value;
  } catch (err) {
    throw new OfficeError(`Word document unreadable: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  return htmlToMarkdown(html, maxChars);
}
