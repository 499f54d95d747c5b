// An export becomes a new conversation (POST /api/session/import), all or nothing. A .zip is extracted by the
// same engine and guards as an uploaded archive (archive/: member count, unpacked bytes, no name outside its
// folder) into a hidden folder inside the new session's own attachment folder, which the import creates and no
// other session can know; the conversation's JSON is read from there, its `attachments/` entries are moved up
// into the session's folder, and only when every reference checks out is the session stored. Any failure
// removes the whole folder: no session, no file is left. A lone .json (an export of a conversation without
// files) is read the same way, with nothing to place.
import { constants as fsc } from 'node:fs';
import fsp from 'node:fs/promises';
import type { App } from '../app.js';
import { extractArchive, maxExtractedBytes } from '../archive/index.js';
import { attachmentRoot } from '../attachments/layout.js';
import { DISK_FULL_EXTRACT, HttpError, isDiskFull, ValueError } from '../core/errors.js';
import { log } from '../core/log.js';
import { isHiddenName } from '../core/paths.js';
import { EXPORT_ATTACHMENTS_DIR } from '../projections/export.js';
import { AnchoredDir, errno } from '../store/anchored.js';
import { ensureDir } from '../store/files.js';
import type { Session } from '../store/sessions.js';
import { EXPORT_TOO_LARGE, importedSession, MAX_EXPORT_JSON_BYTES, NOT_AN_EXPORT, parseExportText, type HeldEntry, type ImportTarget } from './read-export.js';

/** The conversation's JSON in an export's .zip (export/zip-out.ts writes it at the root). */
export const EXPORT_JSON_NAME = 'conversation.json';
/** Where the .zip is unpacked inside the new session's folder: hidden, so no listing shows it meanwhile. */
export const IMPORT_WORK_DIR = '.satchel-import';
/** The extractor picks its engine by name; the upload's own name is the client's and may say anything. */
const ARCHIVE_NAME = 'export.zip';
/** A zip starts with a local file header, or (holding nothing) its end record. */
const ZIP_MAGIC = [Buffer.from('PK\x03\x04', 'latin1'), Buffer.from('PK\x05\x06', 'latin1')];
/** Enough of the start to tell a zip from JSON (which may open with some white space) from anything else. */
const HEAD_BYTES = 64;

async function readHead(file: string): Promise<Buffer> {
  const handle = await fsp.open(file, 'r');
  try {
    const buf = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(buf, 0, HEAD_BYTES, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** The JSON text of an open file, refused past MAX_EXPORT_JSON_BYTES before a byte is read. */
async function readJsonText(handle: fsp.FileHandle): Promise<string> {
  const { size } = await handle.stat();
  if (size > MAX_EXPORT_JSON_BYTES) throw new HttpError(413, EXPORT_TOO_LARGE);
  return handle.readFile('utf8');
}

/** Import the staged upload at `staged` as a new session of `profile`. */
export async function importConversation(app: App, staged: string, profile: string, signal: AbortSignal): Promise<Session> {
  const head = await readHead(staged);
  const workspace = await app.workspaces.validate(app.workspaces.fallbackWorkspace);
  const base = { sessionId: app.sessions.freshId(), stateDir: app.config.stateDir, workspace, profile, now: new Date() };
  if (ZIP_MAGIC.some((magic) => head.subarray(0, magic.length).equals(magic))) return importZip(app, staged, base, signal);
  // Not even the start of a JSON object (a photo, a PDF): said at once, without reading the rest.
  if (!/^\s*(?:\{|$)/.test(head.toString('latin1'))) throw new ValueError(NOT_AN_EXPORT);
  const handle = await fsp.open(staged, 'r');
  let text: string;
  try {
    text = await readJsonText(handle);
  } finally {
    await handle.close();
  }
  // No folder: a reference to any attachment is one the export does not hold.
  return app.sessions.insert(importedSession(parseExportText(text), { ...base, held: new Map() }));
}

/** The extractor's failures: its refusals (400) and a full disk as they are; a zip it cannot read is no export. */
function extractionFailure(err: unknown, signal: AbortSignal): unknown {
  if (signal.aborted) return signal.reason;
  if (err instanceof ValueError || err instanceof HttpError) return err;
  if (isDiskFull(err)) return new HttpError(507, DISK_FULL_EXTRACT);
  log.debug('an import could not read its archive', err);
  return new ValueError(NOT_AN_EXPORT);
}

async function importZip(app: App, staged: string, base: Omit<ImportTarget, 'held'>, signal: AbortSignal): Promise<Session> {
  const rootPath = attachmentRoot(app.config.stateDir);
  await ensureDir(rootPath);
  const root = await AnchoredDir.open(rootPath);
  try {
    // Exclusive: a folder already there (left by something else) is never taken over, nor removed below.
    await root.mkdir(base.sessionId);
    try {
      const folder = await root.openDir(base.sessionId);
      try {
        const held = await unpack(app, staged, folder, signal);
        return await app.sessions.insert(importedSession(held.doc, { ...base, held: held.entries }));
      } finally {
        await folder.close();
      }
    } catch (err) {
      await root.removeTree(base.sessionId).catch((rmErr: unknown) => log.warn('could not remove a failed import', rmErr));
      throw err;
    }
  } finally {
    await root.close();
  }
}

/** Unpack the archive into `folder`: its JSON read, its attachments moved into place, the work folder gone. */
async function unpack(app: App, staged: string, folder: AnchoredDir, signal: AbortSignal): Promise<{ doc: Record<string, unknown>; entries: Map<string, HeldEntry> }> {
  await folder.mkdir(IMPORT_WORK_DIR);
  await extractArchive(staged, ARCHIVE_NAME, folder.pathOf(IMPORT_WORK_DIR), folder, { maxBytes: maxExtractedBytes(app.config.maxUploadBytes), signal }).catch((err: unknown) => {
    throw extractionFailure(err, signal);
  });
  const work = await folder.openDir(IMPORT_WORK_DIR);
  let doc: Record<string, unknown>;
  try {
    const handle = await work.openFile(EXPORT_JSON_NAME, fsc.O_RDONLY).catch((err: unknown) => {
      // Missing, a folder, a link: whatever this archive is, it is not an export.
      if (errno(err) !== undefined) throw new ValueError(NOT_AN_EXPORT);
      throw err;
    });
    try {
      if (!(await handle.stat()).isFile()) throw new ValueError(NOT_AN_EXPORT);
      doc = parseExportText(await readJsonText(handle));
    } finally {
      await handle.close();
    }
    await moveAttachments(work, folder);
  } finally {
    await work.close();
  }
  await folder.removeTree(IMPORT_WORK_DIR);
  return { doc, entries: await heldEntries(folder) };
}

/** `attachments/*` of the unpacked export up into the session's folder (one rename each, on the same disk). */
async function moveAttachments(work: AnchoredDir, folder: AnchoredDir): Promise<void> {
  let from: AnchoredDir;
  try {
    from = await work.openDir(EXPORT_ATTACHMENTS_DIR);
  } catch (err) {
    if (errno(err) === 'ENOENT') return;
    throw new ValueError(NOT_AN_EXPORT);
  }
  try {
    for (const entry of await from.readdir()) {
      // An export holds no hidden name (its files are listed without them); one here stays behind and goes
      // with the work folder, and so can never land on the work folder's own name.
      if (isHiddenName(entry.name) || !(entry.isFile() || entry.isDirectory())) continue;
      await fsp.rename(from.entry(entry.name), folder.entry(entry.name));
    }
  } finally {
    await from.close();
  }
}

/** What the session's folder holds directly: what the document's references may name. */
async function heldEntries(folder: AnchoredDir): Promise<Map<string, HeldEntry>> {
  const out = new Map<string, HeldEntry>();
  for (const entry of await folder.readdir()) {
    if (entry.isDirectory()) out.set(entry.name, { kind: 'dir', size: 0 });
    else if (entry.isFile()) out.set(entry.name, { kind: 'file', size: (await folder.lstat(entry.name)).size });
  }
  return out;
}
