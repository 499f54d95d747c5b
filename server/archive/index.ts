// Safe archive extraction (spec-notes 4.4): the engine behind the upload handlers. The handlers decide where
// an archive goes; this module decides what of it reaches the disk.
import { randomInt } from 'node:crypto';
import path from 'node:path';
import { ValueError } from '../core/errors.js';
import { AnchoredDir } from '../store/anchored.js';
import { log } from '../core/log.js';
import { readSetting, SETTINGS } from '../settings/table.js';
import { MemberWriter, type SkippedMember } from './safe-write.js';

export type { SkippedMember, SkipReason } from './safe-write.js';

export { MAX_ARCHIVE_MEMBERS, EXTRACT_CHUNK_BYTES } from './limits.js';

/** Random-suffix attempts after the plain stem is taken (spec-notes 8). */
export const EXTRACTION_DIR_ATTEMPTS = 1000;
/** Default extracted-bytes cap, as a multiple of the upload cap (spec-notes 8). */
export const EXTRACTED_CAP_FACTOR = 10;
export const MAX_EXTRACTED_ENV = SETTINGS.maxExtractedMb.env;
const MIB = 1024 * 1024;

export type ArchiveKind = 'zip' | 'tar' | 'tar.gz' | 'tar.bz2' | 'tar.xz';

// Longest suffix first, so `.tar.gz` is not taken for `.gz` (unsupported) or `.tar`.
const SUFFIXES: ReadonlyArray<readonly [string, ArchiveKind]> = [
  ['.tar.gz', 'tar.gz'],
  ['.tar.bz2', 'tar.bz2'],
  ['.tar.xz', 'tar.xz'],
  ['.tgz', 'tar.gz'],
  ['.tbz2', 'tar.bz2'],
  ['.txz', 'tar.xz'],
  ['.tar', 'tar'],
  ['.zip', 'zip'],
];

/** Kind from the file name's suffix, case-insensitive; null when unsupported. */
export function archiveKind(filename: string): ArchiveKind | null {
  const lower = filename.toLowerCase();
  for (const [suffix, kind] of SUFFIXES) if (lower.endsWith(suffix)) return kind;
  return null;
}

/** The name minus its last suffix: pack.tar.gz → pack.tar, pack.tgz → pack. */
export function archiveStem(filename: string): string {
  // Like Python's PurePath.stem: a leading dot does not start a suffix (`.zip` stays `.zip`).
  const dot = filename.lastIndexOf('.');
  return dot > 0 ? filename.slice(0, dot) : filename;
}

/** Extracted-bytes cap: SATCHEL_WEBUI_MAX_EXTRACTED_MB (positive decimal MiB, read on each call; invalid or
 *  non-positive ignored) else 10 × uploadCapBytes. */
export function maxExtractedBytes(uploadCapBytes: number, env: NodeJS.ProcessEnv = process.env): number {
  const mib = readSetting('maxExtractedMb', env);
  return mib === undefined ? EXTRACTED_CAP_FACTOR * uploadCapBytes : Math.max(1, Math.floor(mib * MIB));
}

/** The directory an extraction happens in: an anchored directory, or a path (anchored here as a trusted root). */
export type ExtractionBase = AnchoredDir | string;

async function withBase<T>(base: ExtractionBase, work: (dir: AnchoredDir) => Promise<T>): Promise<T> {
  if (typeof base !== 'string') return work(base);
  const dir = await AnchoredDir.open(base);
  try {
    return await work(dir);
  } finally {
    await dir.close();
  }
}

function basePath(base: ExtractionBase): string {
  return typeof base === 'string' ? path.resolve(base) : base.path;
}

/** Create (mkdir, not recursive, exclusive, through the base's descriptor) `<base>/<stem>`, else
 *  `<base>/<stem>_<3 random digits>`, up to 1000 attempts; else ValueError('Could not allocate a unique
 *  extraction directory'). Returns the absolute dir. */
export async function allocateExtractionDir(base: ExtractionBase, filename: string): Promise<string> {
  const root = basePath(base);
  const stem = archiveStem(filename);
  const candidates = function* (): Generator<string> {
    yield stem;
    for (let i = 0; i < EXTRACTION_DIR_ATTEMPTS; i++) yield `${stem}_${String(randomInt(1000)).padStart(3, '0')}`;
  };
  return withBase(base, async (dir) => {
    for (const name of candidates()) {
      // A stem such as `..` (from `...zip`) must not name the base or its parent.
      if (path.dirname(path.resolve(root, name)) !== root || name.includes('/') || name.includes('\\')) continue;
      try {
        await dir.mkdir(name);
        return path.join(root, name);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
    }
    throw new ValueError('Could not allocate a unique extraction directory');
  });
}

export interface ExtractResult {
  extracted: number;
  /** Relative to `base`, '/'-separated. */
  files: string[];
  /** Members that were not written (links, devices, empty directories, sparse files ...), in archive order. */
  skipped: SkippedMember[];
}

/** Extract `archivePath` (kind from `filename`) into `destDir` (already created, a child of `base`), reached
 *  through the base's descriptor. The archive itself is read by path: pass a file outside any tree another
 *  process may rearrange (the staged upload).
 *  Throws ValueError with the exact texts of spec-notes 4.4 (too many files, Zip-slip/Tar-slip blocked: <name>,
 *  Extraction too large ... possible zip bomb); on ANY failure removes destDir entirely before rethrowing.
 *  Other failures (corrupt archive) throw a non-ValueError (the handler maps it to 500 Archive extraction failed).
 *  Members with the same name (or that clash on a case-insensitive disk): the first one is kept and later
 *  ones are skipped, never overwritten; a member that needs a directory where a file already is, likewise. */
export async function extractArchive(
  archivePath: string,
  filename: string,
  destDir: string,
  base: ExtractionBase,
  opts: { maxBytes: number; signal?: AbortSignal },
): Promise<ExtractResult> {
  const dest = path.resolve(destDir);
  const name = path.basename(dest);
  return withBase(base, async (baseDir) => {
    let destAnchor: AnchoredDir | undefined;
    let writer: MemberWriter | undefined;
    try {
      const kind = archiveKind(filename);
      if (!kind) throw new ValueError(`Unsupported archive format: ${filename}`);
      if (path.dirname(dest) !== basePath(base)) throw new Error('Extraction directory is not a child of its base');
      opts.signal?.throwIfAborted();
      destAnchor = await baseDir.openDir(name);
      writer = new MemberWriter(destAnchor, name, opts);
      // Each engine (yauzl; node-tar with the xz and bzip2 decoders) loads with the first archive of its kind
      // rather than with the server: most starts extract nothing.
      if (kind === 'zip') await (await import('./zip.js')).extractZip(archivePath, writer, opts.signal);
      else await (await import('./tar.js')).extractTar(archivePath, kind, writer, opts.signal);
      opts.signal?.throwIfAborted();
      return { extracted: writer.files.length, files: writer.files, skipped: writer.skipped };
    } catch (err) {
      await writer?.close();
      await destAnchor?.close();
      writer = destAnchor = undefined;
      if (path.dirname(dest) === basePath(base)) {
        await baseDir.removeTree(name).catch((rmErr: unknown) => {
          log.error('Could not remove a failed extraction directory:', rmErr);
        });
      }
      throw err;
    } finally {
      await writer?.close();
      await destAnchor?.close();
    }
  });
}
