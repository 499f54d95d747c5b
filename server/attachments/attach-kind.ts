// What an attached file is, judged by its first bytes (and for `.gz`, its name too), before it is stored
// (issue 25): a single gzip-compressed file is decompressed and stored as what it holds (gunzip-upload.ts);
// a 7z or RAR archive is refused with the reason, since Satchel can neither list nor read one (no maintained
// pure-JS reader: docs/architecture.md, "Archives Satchel refuses"), and a green chip would promise the agent
// something it never gets. By content, not name: a renamed `.7z` is still refused, a `.7z`-named zip is not.
import { ValueError } from '../core/errors.js';
import { archiveKind } from '../archive/index.js';
import { readFileHead } from '../store/files.js';

/** Enough bytes for every signature below (RAR 5's is the longest, 8 bytes). */
export const SNIFF_HEAD_BYTES = 8;

// 7-Zip's signature header: '7z' BC AF 27 1C (7zFormat.txt).
const SEVEN_ZIP_MAGIC = Buffer.from([0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c]);
// 'Rar!' 1A 07 00 (RAR 1.5 to 4.x) and 'Rar!' 1A 07 01 00 (RAR 5): the common prefix covers both.
const RAR_MAGIC = Buffer.from([0x52, 0x61, 0x72, 0x21, 0x1a, 0x07]);

/** What to do with what one refusal is about: extract it elsewhere, or repack it as a zip Satchel reads. */
const REFUSAL_ADVICE = 'Extract it and drop the folder, or make a .zip.';
export const SEVEN_ZIP_REFUSED = `7z archives can't be read by Satchel yet. ${REFUSAL_ADVICE}`;
export const RAR_REFUSED = `RAR archives can't be read by Satchel yet. ${REFUSAL_ADVICE}`;

export type AttachKind = { kind: 'file' } | { kind: 'gzip'; innerName: string } | { kind: 'refused'; reason: string };

/** `server.log.gz` → `server.log`; a name that is nothing but `.gz` → `decompressed`. Case-insensitive. */
export function gunzippedName(name: string): string {
  const inner = name.slice(0, -'.gz'.length);
  return inner.replace(/\./g, '') === '' ? 'decompressed' : inner;
}

/** A plain `.gz` by name: `.tar.gz` and `.tgz` are archives (archive/index.ts) and stay stored as they are. */
export function isPlainGzipName(name: string): boolean {
  return name.toLowerCase().endsWith('.gz') && archiveKind(name) === null;
}

/**
 * What the staged upload `file`, sent as `name`, is to be. A `.gz` name is decompressed whatever its first
 * bytes (not gzip: the decompression's 400 says it is damaged), and gzip bytes under another name (`.svgz`,
 * `.tgz`) are stored as they came.
 */
export async function attachKind(file: string, name: string): Promise<AttachKind> {
  const first = await readFileHead(file, SNIFF_HEAD_BYTES);
  if (first.subarray(0, SEVEN_ZIP_MAGIC.length).equals(SEVEN_ZIP_MAGIC)) return { kind: 'refused', reason: SEVEN_ZIP_REFUSED };
  if (first.subarray(0, RAR_MAGIC.length).equals(RAR_MAGIC)) return { kind: 'refused', reason: RAR_REFUSED };
  if (isPlainGzipName(name)) return { kind: 'gzip', innerName: gunzippedName(name) };
  return { kind: 'file' };
}

/** The refusal as the upload answers it: 400, as the specification classes an unsupported archive. */
export function refusal(reason: string): ValueError {
  return new ValueError(reason, true);
}
