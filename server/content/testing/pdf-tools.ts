// PDFs made by the tools people's PDFs come from, for the PDF reader's tests: Ghostscript's ps2pdf writes them
// from PostScript pages this module composes (text lines, or a picture and no text, as a scanner's page), and
// qpdf encrypts one. Where a tool is missing the tests that need it skip and say why; the committed fixtures
// beside this file (made by these same functions, see FIXTURES) keep the main cases running everywhere.
import { execFile } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const onPath = (name: string) => ['/usr/bin', '/usr/local/bin'].map((dir) => path.join(dir, name)).find((p) => existsSync(p)) ?? null;
export const PS2PDF = onPath('ps2pdf');
export const QPDF = onPath('qpdf');
export const PS2PDF_MISSING = 'ps2pdf (Ghostscript) is not installed: apt-get install ghostscript';
export const QPDF_MISSING = 'qpdf is not installed: apt-get install qpdf';
// Ghostscript writes a short document in about 0.2 s; a loaded shared machine can take many times that.
const TOOL_TIMEOUT_MS = 60_000;

/** The committed fixtures: memo-scan.pdf = ps2pdf of MEMO_PAGES; memo-encrypted.pdf = qpdf --encrypt u o 256 of it. */
export const FIXTURES = path.dirname(new URL(import.meta.url).pathname);

/** A page: its lines of text, or `picture` for a page that is only an image (a scanned page's shape). */
export type PsPage = string[] | 'picture';

/** The two pages of the committed fixture: a memo, then a page that is only a picture. */
export const MEMO_PAGES: PsPage[] = [['Quarterly memo', 'Revenue rose by 12 percent.'], 'picture'];

const psString = (line: string) => `(${line.replace(/[\\()]/g, (c) => `\\${c}`)})`;
// An 8×8 grey checkerboard drawn 200 pt wide: pixels, no text operator.
const PICTURE = `gsave 72 400 translate 200 200 scale 8 8 8 [8 0 0 8 0 0] {<${'00ff'.repeat(4)}${'ff00'.repeat(4)}>} image grestore`;
// 9 pt Courier on 14 pt lines: up to 50 lines a US Letter page.
const LINE_PT = 14;

function postScript(pages: readonly PsPage[]): string {
  const body = pages.map((page) => {
    if (page === 'picture') return `${PICTURE}\nshowpage`;
    const lines = page.map((line, i) => `72 ${740 - i * LINE_PT} moveto ${psString(line)} show`);
    return `/Courier findfont 9 scalefont setfont\n${lines.join('\n')}\nshowpage`;
  });
  return `%!PS\n${body.join('\n')}\n`;
}

/** The pages as a PDF written by ps2pdf, in `dir` as `name`. */
export async function ps2pdf(dir: string, name: string, pages: readonly PsPage[]): Promise<string> {
  if (!PS2PDF) throw new Error(PS2PDF_MISSING);
  const source = path.join(dir, `${path.parse(name).name}.ps`);
  const out = path.join(dir, name);
  await fs.writeFile(source, postScript(pages));
  await run(PS2PDF, [source, out], { timeout: TOOL_TIMEOUT_MS });
  return out;
}

/** `pdf` encrypted by qpdf with AES-256, user password "u" (needed to open it), owner password "o". */
export async function qpdfEncrypt(pdf: string, out: string): Promise<string> {
  if (!QPDF) throw new Error(QPDF_MISSING);
  await run(QPDF, ['--encrypt', 'u', 'o', '256', '--', pdf, out], { timeout: TOOL_TIMEOUT_MS });
  return out;
}
