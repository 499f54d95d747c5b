// An export becomes new conversations (POST /api/session/import), all or nothing. A .zip is extracted by the
// same engine and guards as an uploaded archive (archive/: member count, unpacked bytes, no name outside its
// folder) into a hidden work folder inside a new session folder, which the import creates and no other session
// can know. An export of one conversation holds `conversation.json` at its root: it is read from there, its
// `attachments/` entries are moved up into the session's folder. An "Export all" archive holds one folder per
// conversation, each laid out the same way: each gets a new session folder of its own. Only when every
// conversation's references check out are they stored, in one transaction. Any failure removes every folder
// the import made: no session, no file is left. A lone .json (an export of a conversation without files) is
// read the same way, with nothing to place.
import { constants as fsc } from 'node:fs';
import fsp from 'node:fs/promises';
import type { App } from '../app.js';
import { extractArchive, maxExtractedBytes } from '../archive/index.js';
import { attachmentRoot } from '../attachments/layout.js';
import { DISK_FULL_EXTRACT, HttpError, isDiskFull, ValueError } from '../core/errors.js';
import { log } from '../core/log.js';
import { isHiddenName } from '../core/paths.js';
import { quotedName } from '../archive/limits.js';
import { EXPORT_ATTACHMENTS_DIR } from '../projections/export.js';
import { AnchoredDir, errno } from '../store/anchored.js';
import { ensureDir, readFileHead } from '../store/files.js';
import type { Session } from '../store/sessions.js';
import { writeDraft } from '../drafts/store.js';
import { ExportJsonReader } from './parse-json.js';
import {
  EXPORT_TOO_LARGE,
  exportDocument,
  importedDraft,
  importedFolderName,
  importedSession,
  MAX_EXPORT_JSON_BYTES,
  NOT_AN_EXPORT,
  type HeldEntry,
  type ImportContext,
  type ImportTarget,
} from './read-export.js';
import { listConnections } from '../agent/connections.js';
import { foldersNamed, removeFolders } from '../store/folders.js';
import { sessionVisible } from '../store/profiles.js';

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

/** The document of an open file's JSON, refused past MAX_EXPORT_JSON_BYTES before a byte is read. */
async function readDocument(handle: fsp.FileHandle, reader: ExportJsonReader, signal: AbortSignal): Promise<Record<string, unknown>> {
  const { size } = await handle.stat();
  if (size > MAX_EXPORT_JSON_BYTES) throw new HttpError(413, EXPORT_TOO_LARGE);
  // Bytes, not text: decoding and parsing happen in the reader's worker, off the event loop.
  return exportDocument(await reader.read(await handle.readFile(), signal));
}

/** What an import made: its conversations, and the connections the export named that this machine lacks. */
export interface ImportResult {
  sessions: Session[];
  missingConnections: string[];
}

/** The profile's titles and this machine's connections, which an import matches the export's names against. */
function importContext(app: App, profile: string): ImportContext {
  const titles = new Set(app.sessions.list().filter((s) => sessionVisible(s.profile, profile)).map((s) => s.title));
  const { connections } = listConnections(app.config.stateDir, process.env, app.agentKeyStore);
  return { titles, connections: connections.map((c) => ({ id: c.id, name: c.name })), missingConnections: new Set() };
}

/** Import the staged upload at `staged` as new sessions of `profile`: one, or each of an "Export all" archive. */
export async function importConversations(app: App, staged: string, profile: string, signal: AbortSignal): Promise<ImportResult> {
  const context = importContext(app, profile);
  const sessions = await importSessions(app, staged, profile, context, signal);
  return { sessions, missingConnections: [...context.missingConnections] };
}

async function importSessions(app: App, staged: string, profile: string, context: ImportContext, signal: AbortSignal): Promise<Session[]> {
  const head = await readFileHead(staged, HEAD_BYTES);
  const workspace = await app.workspaces.validate(app.workspaces.fallbackWorkspace);
  if (ZIP_MAGIC.some((magic) => head.subarray(0, magic.length).equals(magic))) {
    const reader = new ExportJsonReader();
    try {
      return await importZip(app, staged, { stateDir: app.config.stateDir, workspace, profile, now: new Date(), reader, context }, signal);
    } finally {
      await reader.close();
    }
  }
  const base = { stateDir: app.config.stateDir, workspace, profile, now: new Date(), context };
  // Not even the start of a JSON object (a photo, a PDF): said at once, without reading the rest.
  if (!/^\s*(?:\{|$)/.test(head.toString('latin1'))) throw new ValueError(NOT_AN_EXPORT);
  const reader = new ExportJsonReader();
  let doc: Record<string, unknown>;
  try {
    const handle = await fsp.open(staged, 'r');
    try {
      doc = await readDocument(handle, reader, signal);
    } finally {
      await handle.close();
    }
  } finally {
    await reader.close();
  }
  // No folder: a reference to any attachment is one the export does not hold.
  const drafts = new Drafts();
  const folders = new FolderNames();
  const session = folders.read(doc, drafts.read(doc, importedSession(doc, { ...base, sessionId: app.sessions.freshId(), held: new Map() })));
  const stored = await folders.storing(app, profile, [session], (all) => app.sessions.insertAll(all));
  await drafts.write(app.config.stateDir);
  return stored;
}

/**
 * The folders an import's conversations were in (an export names each by its name): found in the profile by
 * name or made, just before the conversations are stored, and the ones made taken back if storing fails.
 */
class FolderNames {
  private readonly named = new Map<string, string>();

  read(doc: Record<string, unknown>, session: Session): Session {
    const name = importedFolderName(doc);
    if (name !== undefined) this.named.set(session.session_id, name);
    return session;
  }

  async storing(app: App, profile: string, sessions: Session[], store: (sessions: Session[]) => Promise<Session[]>): Promise<Session[]> {
    const { byName, made } = await foldersNamed(app.sessions, profile, [...new Set(this.named.values())]);
    const placed = sessions.map((s) => {
      const folder = byName.get(this.named.get(s.session_id) ?? '');
      return folder ? { ...s, folder: folder.id } : s;
    });
    try {
      return await store(placed);
    } catch (err) {
      await removeFolders(app.sessions, made).catch((e: unknown) => log.warn('could not take back the folders of a failed import', e));
      throw err;
    }
  }
}

/** The drafts an import's conversations carry: read (and checked) with each conversation, written once it is stored. */
class Drafts {
  private readonly found = new Map<string, NonNullable<ReturnType<typeof importedDraft>>>();

  read(doc: Record<string, unknown>, session: Session): Session {
    const draft = importedDraft(doc, session);
    if (draft) this.found.set(session.session_id, draft);
    return session;
  }

  /** After the conversations are stored: a draft that cannot be written costs its text and chips, never the import. */
  async write(stateDir: string): Promise<void> {
    for (const [id, draft] of this.found) await writeDraft(stateDir, id, draft).catch((err: unknown) => log.warn('could not restore an imported draft', err));
  }
}

type ImportBase = Omit<ImportTarget, 'held' | 'sessionId'> & { reader: ExportJsonReader };

/** The extractor's failures: its refusals (400) and a full disk as they are; a zip it cannot read is no export. */
function extractionFailure(err: unknown, signal: AbortSignal): unknown {
  if (signal.aborted) return signal.reason;
  if (err instanceof ValueError || err instanceof HttpError) return err;
  if (isDiskFull(err)) return new HttpError(507, DISK_FULL_EXTRACT);
  log.debug('an import could not read its archive', err);
  return new ValueError(NOT_AN_EXPORT);
}

/** Session folders made by one import: each new, exclusive, and all removed again unless the import is stored. */
class ImportFolders {
  private readonly made: string[] = [];

  constructor(
    private readonly app: App,
    readonly root: AnchoredDir,
  ) {}

  /**
   * A new session id whose folder this import has just created (exclusive: one already there is never taken
   * over), holding the work folder from the first moment: the mark by which the next start knows a folder an
   * import left when the process died (sweepUnfinishedImports).
   */
  async make(): Promise<string> {
    for (;;) {
      const id = this.app.sessions.freshId();
      if (this.made.includes(id)) continue;
      try {
        await this.root.mkdir(id);
      } catch (err) {
        if (errno(err) === 'EEXIST') continue;
        throw err;
      }
      this.made.push(id);
      await withDir(this.root, id, (dir) => dir.mkdir(IMPORT_WORK_DIR));
      return id;
    }
  }

  async removeAll(): Promise<void> {
    for (const id of this.made) await this.root.removeTree(id).catch((err: unknown) => log.warn('could not remove a failed import', err));
  }

  /** The import is stored: each folder it kept loses its mark (and the first its unpacked leftovers). */
  async unmarkAll(): Promise<void> {
    for (const id of this.made) {
      await withDir(this.root, id, (dir) => dir.removeTree(IMPORT_WORK_DIR)).catch((err: unknown) => {
        if (errno(err) !== 'ENOENT') log.warn('could not remove an import\'s work folder (the next start does)', err);
      });
    }
  }
}

async function importZip(app: App, staged: string, base: ImportBase, signal: AbortSignal): Promise<Session[]> {
  const rootPath = attachmentRoot(app.config.stateDir);
  await ensureDir(rootPath);
  const folders = new ImportFolders(app, await AnchoredDir.open(rootPath));
  const drafts = new Drafts();
  const folderNames = new FolderNames();
  try {
    // The archive is unpacked inside the first session's folder; it is that conversation's if it holds one.
    const first = await folders.make();
    const sessions = await withDir(folders.root, first, async (folder) => {
      await unpack(app, staged, folder, signal);
      const work = await folder.openDir(IMPORT_WORK_DIR);
      let found: Found[];
      try {
        found = (await holds(work, EXPORT_JSON_NAME)) ? [{ id: first, doc: await readConversation(work, folder, base.reader, signal) }] : await readEveryConversation(work, folders, base.reader, signal);
      } finally {
        await work.close();
      }
      const out: Session[] = [];
      for (const { id, name, doc } of found) {
        const held = await withDir(folders.root, id, heldEntries);
        // A conversation without files has no folder, as one made in Satchel has none before its first upload.
        if (held.size === 0) await folders.root.removeTree(id);
        out.push(naming(name, () => folderNames.read(doc, drafts.read(doc, importedSession(doc, { ...base, sessionId: id, held })))));
      }
      return out;
    });
    // The first folder held only the work folder when the archive was an "Export all": it goes now.
    if (!sessions.some((s) => s.session_id === first)) await folders.root.removeTree(first);
    const stored = await folderNames.storing(app, base.profile, sessions, (all) => app.sessions.insertAll(all));
    await folders.unmarkAll();
    await drafts.write(app.config.stateDir);
    return stored;
  } catch (err) {
    await folders.removeAll();
    throw err;
  } finally {
    await folders.root.close();
  }
}

/** A conversation read from an archive: its new id, its folder in an "Export all" archive, its document. */
interface Found {
  id: string;
  name?: string;
  doc: Record<string, unknown>;
}

/** Whether `dir` has an entry `name` (of any kind: what it is, the reader judges). */
async function holds(dir: AnchoredDir, name: string): Promise<boolean> {
  try {
    await dir.lstat(name);
    return true;
  } catch (err) {
    if (errno(err) === 'ENOENT') return false;
    throw err;
  }
}

/** A refusal about one conversation of an "Export all" archive names its folder, so the person knows which. */
function naming<T>(name: string | undefined, read: () => T): T {
  const said = (err: unknown): never => {
    throw name !== undefined && err instanceof ValueError ? new ValueError(`${quotedName(name)}: ${err.message}`, err.verbatim) : err;
  };
  try {
    const out = read();
    return out instanceof Promise ? (out.catch(said) as T) : out;
  } catch (err) {
    return said(err);
  }
}

async function withDir<T>(root: AnchoredDir, name: string, use: (dir: AnchoredDir) => Promise<T>): Promise<T> {
  const dir = await root.openDir(name);
  try {
    return await use(dir);
  } finally {
    await dir.close();
  }
}

/** Unpack the archive into `folder`'s hidden work folder. */
async function unpack(app: App, staged: string, folder: AnchoredDir, signal: AbortSignal): Promise<void> {
  await extractArchive(staged, ARCHIVE_NAME, folder.pathOf(IMPORT_WORK_DIR), folder, { maxBytes: maxExtractedBytes(app.config.maxUploadBytes), signal }).catch((err: unknown) => {
    throw extractionFailure(err, signal);
  });
}

/** One conversation laid out in `from` (its JSON, `attachments/`): its document, its files moved into `to`. */
async function readConversation(from: AnchoredDir, to: AnchoredDir, reader: ExportJsonReader, signal: AbortSignal): Promise<Record<string, unknown>> {
  const handle = await from.openFile(EXPORT_JSON_NAME, fsc.O_RDONLY).catch((err: unknown) => {
    // Missing, a folder, a link: whatever this archive is, it is not an export.
    if (errno(err) !== undefined) throw new ValueError(NOT_AN_EXPORT);
    throw err;
  });
  let doc: Record<string, unknown>;
  try {
    if (!(await handle.stat()).isFile()) throw new ValueError(NOT_AN_EXPORT);
    doc = await readDocument(handle, reader, signal);
  } finally {
    await handle.close();
  }
  await moveAttachments(from, to);
  return doc;
}

/**
 * An "Export all" archive: every folder at its root holding a conversation's JSON, each into a new session folder,
 * in the archive's order of names. Other entries (a note someone added) are left with the work folder; an
 * archive with no such folder is no export. A refusal names the conversation's folder, so the person knows which.
 */
async function readEveryConversation(work: AnchoredDir, folders: ImportFolders, reader: ExportJsonReader, signal: AbortSignal): Promise<Found[]> {
  const names = (await work.readdir())
    .filter((e) => e.isDirectory() && !isHiddenName(e.name))
    .map((e) => e.name)
    .sort();
  const out: Found[] = [];
  for (const name of names) {
    const doc = await withDir(work, name, async (part) => {
      if (!(await holds(part, EXPORT_JSON_NAME))) return undefined;
      const id = await folders.make();
      return { id, name, doc: await naming(name, () => withDir(folders.root, id, (to) => readConversation(part, to, reader, signal))) };
    });
    if (doc) out.push(doc);
  }
  if (out.length === 0) throw new ValueError(NOT_AN_EXPORT);
  return out;
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
    // The work folder (the import's mark) and nothing else hidden: an export holds no hidden name.
    if (isHiddenName(entry.name)) continue;
    if (entry.isDirectory()) out.set(entry.name, { kind: 'dir', size: 0 });
    else if (entry.isFile()) out.set(entry.name, { kind: 'file', size: (await folder.lstat(entry.name)).size });
  }
  return out;
}
