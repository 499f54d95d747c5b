// Office sidecars (section 4.7 step 7): a Markdown preview `<name>.md` written beside an uploaded .docx,
// .xlsx or .pptx. The zip is guarded before any parser sees it, the preview is capped, and the sidecar is
// either written completely or not at all.
import fs from 'node:fs/promises';
import { constants } from 'node:fs';
import path from 'node:path';
import { docxToMarkdown } from './docx.js';
import { readGuardedZip, type ZipLimits, type ZipMembers } from './guarded-zip.js';
import { createLimiter } from './limiter.js';
import { capPreview } from './markdown.js';
import { OfficeError } from './office-error.js';
import { pptxToMarkdown } from './pptx.js';
import { parseXmlPart } from './xml.js';
import { xlsxToMarkdown } from './xlsx.js';

export type OfficeFormat = 'docx' | 'xlsx' | 'pptx';
export const OFFICE_MAX_MEMBERS = 256;
export const OFFICE_MAX_TOTAL_BYTES = 8_000_000;
export const OFFICE_MAX_MEMBER_BYTES = 4_000_000;
export const OFFICE_MAX_RATIO = 200;
export const PREVIEW_MAX_CHARS = 120_000;
// The whole file is read into memory once, so the guard and mammoth see the very same bytes. A package
// within the inflated limits is at most about that size (stored members) plus headers; twice is headroom,
// and anything larger is padding no Office application writes.
export const OFFICE_MAX_FILE_BYTES = 2 * OFFICE_MAX_TOTAL_BYTES;
export const SIDECAR_SUFFIX = '.md';
const SIDECAR_MODE = 0o644;
// O_NOFOLLOW does not exist on Windows, where O_EXCL alone already refuses an existing link.
const SIDECAR_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);
const NO_TEXT = '*(No text found in the document.)*\n';
// Conversions are CPU-bound and hold the whole package in memory: one at a time bounds both, whatever the
// number of simultaneous uploads (the others wait; an upload itself never fails for it).
export const OFFICE_MAX_CONCURRENT = 1;
const limit = createLimiter(OFFICE_MAX_CONCURRENT);

export const OFFICE_LIMITS: ZipLimits = {
  maxMembers: OFFICE_MAX_MEMBERS,
  maxTotalBytes: OFFICE_MAX_TOTAL_BYTES,
  maxMemberBytes: OFFICE_MAX_MEMBER_BYTES,
  maxRatio: OFFICE_MAX_RATIO,
};

const FORMATS: Record<string, OfficeFormat> = { '.docx': 'docx', '.xlsx': 'xlsx', '.pptx': 'pptx' };

/** The Office format named by the file's extension (case-insensitive), or null. */
export function officeFormat(filename: string): OfficeFormat | null {
  return FORMATS[path.extname(filename).toLowerCase()] ?? null;
}

export interface Sidecar {
  filename: string;
  path: string;
  size: number;
  preview_kind: 'office';
  office_format: OfficeFormat;
}

/** Convert the Office file at `filePath` to Markdown and write `<filePath>.md` beside it: created exclusively
 *  without following symlinks (O_CREAT|O_EXCL|O_NOFOLLOW), written fully, and on ANY failure the partial sidecar
 *  is removed and the error rethrown (the handler turns it into `sidecar_error: "Office sidecar extraction failed"`). */
export async function writeOfficeSidecar(filePath: string, format: OfficeFormat): Promise<Sidecar> {
  const sidecarPath = path.resolve(filePath + SIDECAR_SUFFIX);
  // Converted first, so a document that fails to convert never leaves a file behind.
  const data = Buffer.from(await officeToMarkdown(filePath, format), 'utf8');
  // A failed open created nothing, and whatever already sits at that path is not ours to remove.
  const handle = await fs.open(sidecarPath, SIDECAR_FLAGS, SIDECAR_MODE);
  try {
    await handle.writeFile(data);
    await handle.close();
  } catch (err) {
    await handle.close().catch(() => {});
    await fs.rm(sidecarPath, { force: true }).catch(() => {});
    throw err;
  }
  return {
    filename: path.basename(sidecarPath),
    path: sidecarPath,
    size: data.length,
    preview_kind: 'office',
    office_format: format,
  };
}

/** The Markdown alone (used by writeOfficeSidecar; exported for tests). */
export async function officeToMarkdown(filePath: string, format: OfficeFormat): Promise<string> {
  return limit(() => convert(filePath, format));
}

async function convert(filePath: string, format: OfficeFormat): Promise<string> {
  try {
    const buffer = await readOfficeFile(filePath);
    const members = await readGuardedZip(buffer, OFFICE_LIMITS);
    // xlsx and pptx parse every part they read with the strict parser already; mammoth brings its own.
    if (format === 'docx') checkXmlParts(members);
    const markdown =
      format === 'docx' ? await docxToMarkdown(buffer, PREVIEW_MAX_CHARS) : format === 'xlsx' ? xlsxToMarkdown(members) : pptxToMarkdown(members);
    return capPreview(markdown || NO_TEXT, PREVIEW_MAX_CHARS);
  } catch (err) {
    if (err instanceof OfficeError) throw err;
    throw new OfficeError(`Office conversion failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
}

async function readOfficeFile(filePath: string): Promise<Buffer> {
  const handle = await fs.open(filePath, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new OfficeError('Office file is not a regular file');
    if (stat.size > OFFICE_MAX_FILE_BYTES) {
      throw new OfficeError(`Office file too large to preview (> ${OFFICE_MAX_FILE_BYTES} bytes)`);
    }
    return await handle.readFile();
  } finally {
    await handle.close();
  }
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
