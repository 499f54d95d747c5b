// Word to Markdown through mammoth: it maps styles to headings, numbering to lists and keeps tables, which is
// the structure a preview needs. Mammoth's own Markdown writer is deprecated and drops tables, so it writes
// HTML and html-to-markdown.ts turns that into Markdown.
import mammoth from 'mammoth';
import { htmlToMarkdown } from './html-to-markdown.js';
import { OfficeError } from './office-error.js';

// Images are never decoded or embedded: a preview holds text, and a data URI would dwarf it.
const NO_IMAGES = mammoth.images.imgElement(async () => ({ src: '' }));

/**
 * `buffer` must already have passed the zip guard: mammoth unzips it again, trusting its headers. Rendering
 * may stop once the Markdown exceeds `maxChars` (the preview cap); the first `maxChars` are unaffected.
 */
export async function docxToMarkdown(buffer: Buffer, maxChars = Infinity): Promise<string> {
  let html: string;
  try {
    const result = await mammoth.convertToHtml(
      { buffer },
      {
        convertImage: NO_IMAGES,
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
