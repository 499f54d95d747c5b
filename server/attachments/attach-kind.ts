// What an attached file is, judged by its first bytes (and for `.gz`, its name too), before it is stored
// (issue 25): a single gzip-compressed file is decompressed and stored as what it holds (gunzip-upload.ts);
// a 7z or RAR archive is refused with the reason, since Satchel can neither list nor read one (no maintained
// pure-JS reader: docs/architecture.md, "Archives Satchel refuses"), and a green chip would promise the agent
// something it never gets. By content, not name (content/kind.ts): a renamed `.7z` is still refused, a `.7z`-named
// zip is not.
import { ValueError } from '../core/errors.js';
import { archiveKind } from '../archive/index.js';
import { classify, CLASSIFY_BYTES, REFUSED_ARCHIVE, type Kind } from '../content/index.js';
import { readFileHead } from '../store/files.js';

export const SEVEN_ZIP_REFUSED = REFUSED_ARCHIVE['7z'];
export const RAR_REFUSED = REFUSED_ARCHIVE.rar;

/** `content`: what the content engine says the file is (the upload's `is_image` is read from it). */
export type AttachKind = { kind: 'file'; content: Kind } | { kind: 'gzip'; innerName: string } | { kind: 'refused'; reason: string };

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
 * `.tgz`) are stored as they came. `head`, when given, is the file's first CLASSIFY_BYTES bytes (or all of it).
 */
export async function attachKind(file: string, name: string, head?: Buffer): Promise<AttachKind> {
  // `head`: the same first bytes, kept as they were staged (http/multipart.ts), instead of an open, read, close.
  const kind = classify(name, head ? head.subarray(0, CLASSIFY_BYTES) : await readFileHead(file, CLASSIFY_BYTES));
  if (kind.kind === 'archive' && (kind.format === '7z' || kind.format === 'rar')) return { kind: 'refused', reason: REFUSED_ARCHIVE[kind.format] };
  if (isPlainGzipName(name)) return { kind: 'gzip', innerName: gunzippedName(name) };
  return { kind: 'file', content: kind };
}

/** The refusal as the upload answers it: 400, as the specification classes an unsupported archive. */
export function refusal(reason: string): ValueError {
  return new ValueError(reason, true);
}
