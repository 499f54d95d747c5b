// What a file is, decided once for everyone who reads one (issue 35): the turn, MCP, the chip, the upload, and
// (through this module's index) the preview and the search index. Bytes first: a PNG named `notes.txt`, `scan`
// or `shot.dat` is an image, text named `notes.png` is text. The name decides only what bytes cannot: which zip
// is an Office document (a .docx is a zip), which compressed stream holds a tar, and an audio file whose format
// has no signature worth trusting (an MP3 without an ID3 tag, a WebM that may as well be video).
//
// Every reader dispatches with an exhaustive `switch` over `Kind['kind']` ending in `unknownKind`: a new kind is
// a compile error in each of them until each decides what to do with it.
import path from 'node:path';
import { archiveKind, type ArchiveKind } from '../archive/index.js';
import { officeFormat, type OfficeFormat } from '../office/index.js';
import { readFileHead } from '../store/files.js';
import { imageMime, isPdf, isSvg, looksLikeText } from './file-kind.js';
import { SNIFF_BYTES } from './text-encoding.js';

/** Archives Satchel recognizes but cannot read (no maintained pure-JS reader: docs/architecture.md). */
export type RefusedArchive = '7z' | 'rar';

/** What to do with what one refusal is about: extract it elsewhere, or repack it as a zip Satchel reads. */
const REFUSAL_ADVICE = 'Extract it and drop the folder, or make a .zip.';
/** Why each is not read, as the upload's refusal and the agent's note say it. */
export const REFUSED_ARCHIVE: Record<RefusedArchive, string> = {
  '7z': `7z archives can't be read by Satchel yet. ${REFUSAL_ADVICE}`,
  rar: `RAR archives can't be read by Satchel yet. ${REFUSAL_ADVICE}`,
};

export type Kind =
  // `drawable`: an SVG, text the page can also draw as an image (the preview does; the agent reads its text).
  | { kind: 'text'; drawable?: 'image/svg+xml' }
  | { kind: 'pdf' }
  | { kind: 'office'; format: OfficeFormat }
  | { kind: 'image'; mime: string }
  | { kind: 'audio' }
  | { kind: 'archive'; format: ArchiveKind | RefusedArchive }
  | { kind: 'binary' };

export type KindName = Kind['kind'];

/** The end of every exhaustive switch over Kind: reached only by a kind some reader has not decided. */
export function unknownKind(kind: never): never {
  throw new Error(`no reader decided kind ${JSON.stringify(kind)}`);
}

// 7-Zip's signature header: '7z' BC AF 27 1C (7zFormat.txt).
const SEVEN_ZIP_MAGIC = [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c];
// 'Rar!' 1A 07 00 (RAR 1.5 to 4.x) and 'Rar!' 1A 07 01 00 (RAR 5): the common prefix covers both.
const RAR_MAGIC = [0x52, 0x61, 0x72, 0x21, 0x1a, 0x07];
// A zip's local file header, or the end record of an empty zip.
const ZIP_MAGICS = [[0x50, 0x4b, 0x03, 0x04], [0x50, 0x4b, 0x05, 0x06]];
/** POSIX and GNU tar headers say `ustar` at this offset. */
const TAR_MAGIC_OFFSET = 257;
// gzip, bzip2 and xz streams: a tar inside one is told only by the name (`.tar.gz`, `.tbz2`, …).
const COMPRESSED_MAGICS = [[0x1f, 0x8b], [0x42, 0x5a, 0x68], [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]];

/** Bytes of a file's start that classify needs: every signature here (a tar's is at 257) and enough text to
 *  judge it. Callers may pass fewer (a file shorter than this) or more. */
export const CLASSIFY_BYTES = SNIFF_BYTES;

/** Audio whose bytes the speech reader decodes, by signature (server/speech/audio.ts). */
function audioBySignature(head: Buffer): boolean {
  const ascii = (at: number, s: string) => head.subarray(at, at + s.length).toString('latin1') === s;
  if (ascii(0, 'RIFF') && ascii(8, 'WAVE')) return true;
  // Each with the binary byte after it that its format fixes, so a text file starting with the word is text.
  if (ascii(0, 'OggS') && head[4] === 0) return true;
  if (ascii(0, 'fLaC') && head.length > 4 && (head[4]! & 0x7f) === 0) return true;
  if (ascii(0, 'ID3') && head[3]! >= 2 && head[3]! <= 4 && head[4] === 0) return true;
  // ISO BMFF audio: an M4A's brand.
  return ascii(4, 'ftyp') && (ascii(8, 'M4A ') || ascii(8, 'M4B '));
}

/** Audio the name says, for bytes no signature above tells: a WebM (Matroska may be video) or a bare MP3 stream. */
const AUDIO_EXTENSIONS = new Set(['.webm', '.ogg', '.oga', '.opus', '.wav', '.mp3', '.m4a', '.flac']);

const startsWith = (head: Buffer, sig: readonly number[], at = 0) => sig.every((byte, i) => head[at + i] === byte);

/**
 * What the file named `name` is, from `head`, its first bytes (at least CLASSIFY_BYTES of them, or the whole
 * file when shorter). `name` is only a tie-breaker (see the header).
 */
export function classify(name: string, head: Buffer): Kind {
  if (isPdf(head)) return { kind: 'pdf' };
  const image = imageMime(head);
  if (image) return { kind: 'image', mime: image };
  if (startsWith(head, SEVEN_ZIP_MAGIC)) return { kind: 'archive', format: '7z' };
  if (startsWith(head, RAR_MAGIC)) return { kind: 'archive', format: 'rar' };
  if (ZIP_MAGICS.some((m) => startsWith(head, m))) {
    const format = officeFormat(name);
    return format ? { kind: 'office', format } : { kind: 'archive', format: 'zip' };
  }
  if (head.subarray(TAR_MAGIC_OFFSET, TAR_MAGIC_OFFSET + 5).toString('latin1') === 'ustar') return { kind: 'archive', format: 'tar' };
  const byName = archiveKind(name);
  if (byName && byName !== 'zip' && byName !== 'tar' && COMPRESSED_MAGICS.some((m) => startsWith(head, m))) return { kind: 'archive', format: byName };
  if (audioBySignature(head)) return { kind: 'audio' };
  if (looksLikeText(head)) return isSvg(name, head) ? { kind: 'text', drawable: 'image/svg+xml' } : { kind: 'text' };
  if (AUDIO_EXTENSIONS.has(path.extname(name).toLowerCase())) return { kind: 'audio' };
  return { kind: 'binary' };
}

/** classify for a file of the server's own (a staged upload): its first bytes read by path. */
export async function classifyFile(file: string, name: string): Promise<Kind> {
  return classify(name, await readFileHead(file, SNIFF_BYTES));
}
