// Folders a profile groups its conversations in (issue 38). A folder is a row of `folders` (schema 9); a
// conversation names its folder in its header (`folder`: the folder's id), so moving one is an ordinary write of
// that conversation (with its revision, its event, its place in the list cache) and costs no join to list. A
// folder deleted takes no conversation with it: each goes back to no folder. A conversation naming a folder that
// no longer exists (a move that raced the delete, a crash between the two) counts as in no folder everywhere
// (`folderOf`), and the next move or delete of the folder's id puts it right.
import { randomBytes } from 'node:crypto';
import { HttpError, ValueError } from '../core/errors.js';
import type { Queries } from './db/connection.js';
import { sessionVisible } from './profiles.js';
import type { Session, SessionStore } from './sessions.js';

/** A folder's name: a few words ("Car insurance 2026", a client's name); the sidebar shows about 30 characters. */
export const MAX_FOLDER_NAME_CHARS = 100;
/** Folders of one profile: far more than a sidebar can show usefully, few enough to list in one answer. */
export const MAX_FOLDERS_PER_PROFILE = 200;

export const FOLDER_NAME_NOT_STRING = 'Folder name must be a string';
export const FOLDER_NAME_EMPTY = 'Folder name is empty';
export const FOLDER_NAME_TOO_LONG = `Folder name too long (max ${MAX_FOLDER_NAME_CHARS} characters)`;
export const FOLDER_NAME_TAKEN = 'A folder with this name already exists';
export const TOO_MANY_FOLDERS = `Too many folders (max ${MAX_FOLDERS_PER_PROFILE})`;
export const INVALID_FOLDER_ID = 'Invalid folder id';
export const FOLDER_ID_NOT_STRING = 'folder_id must be a string or null';
export const FOLDER_ID_MISSING = 'Missing required field(s): folder_id';
export const FOLDER_NOT_FOUND = 'Folder not found';

const FOLDER_ID = /^[0-9a-f]{12}$/;

export interface Folder {
  id: string;
  profile: string;
  name: string;
  created_at: string;
}

export function isFolderId(id: unknown): id is string {
  return typeof id === 'string' && FOLDER_ID.test(id);
}

/**
 * A name as a folder keeps it: control characters made spaces, trimmed, NFC. Refused (ValueError, the exact
 * 400 texts above) when it is no string, nothing is left, or it is longer than MAX_FOLDER_NAME_CHARS.
 */
export function folderName(value: unknown): string {
  if (typeof value !== 'string') throw new ValueError(FOLDER_NAME_NOT_STRING);
  const name = value.replace(/[\u0000-\u001f\u007f]/g, ' ').trim().normalize('NFC');
  if (name === '') throw new ValueError(FOLDER_NAME_EMPTY);
  if (name.length > MAX_FOLDER_NAME_CHARS) throw new ValueError(FOLDER_NAME_TOO_LONG);
  return name;
}

/** The name as two folders are compared: "Work" and "work", "ﬁles" and "files" are one folder. */
function folded(name: string): string {
  return name.normalize('NFKC').toLowerCase();
}

function folderRow(row: Folder): Folder {
  return { id: row.id, profile: row.profile, name: row.name, created_at: row.created_at };
}

/** The profile's folders, by name (the sidebar's order). */
export async function listFolders(q: Queries, profile: string): Promise<Folder[]> {
  const rows = await q.all<Folder>('SELECT id, profile, name, created_at FROM folders WHERE profile = ? ORDER BY folded, id', [profile]);
  return rows.map(folderRow);
}

/** One folder of the profile; 404 when there is none (another profile's is as missing). */
export async function getFolder(q: Queries, profile: string, id: unknown): Promise<Folder> {
  if (!isFolderId(id)) throw new ValueError(INVALID_FOLDER_ID);
  const row = await q.get<Folder>('SELECT id, profile, name, created_at FROM folders WHERE id = ? AND profile = ?', [id, profile]);
  if (!row) throw new HttpError(404, FOLDER_NOT_FOUND);
  return folderRow(row);
}

async function refuseTaken(q: Queries, profile: string, name: string, except?: string): Promise<void> {
  const taken = await q.get<{ id: string }>('SELECT id FROM folders WHERE profile = ? AND folded = ? AND id IS NOT ?', [profile, folded(name), except ?? null]);
  if (taken) throw new ValueError(FOLDER_NAME_TAKEN);
}

/** A new folder of the profile, refused when the name is taken or the profile has MAX_FOLDERS_PER_PROFILE. */
export async function createFolder(store: SessionStore, profile: string, rawName: unknown, now = new Date()): Promise<Folder> {
  const name = folderName(rawName);
  return store.transaction(async (q) => {
    const { n } = (await q.get<{ n: number }>('SELECT count(*) AS n FROM folders WHERE profile = ?', [profile]))!;
    if (n >= MAX_FOLDERS_PER_PROFILE) throw new ValueError(TOO_MANY_FOLDERS);
    await refuseTaken(q, profile, name);
    const folder: Folder = { id: randomBytes(6).toString('hex'), profile, name, created_at: now.toISOString() };
    await q.run('INSERT INTO folders (id, profile, name, folded, created_at) VALUES (?, ?, ?, ?, ?)', [folder.id, profile, name, folded(name), folder.created_at]);
    return folder;
  });
}

export async function renameFolder(store: SessionStore, profile: string, id: unknown, rawName: unknown): Promise<Folder> {
  const name = folderName(rawName);
  return store.transaction(async (q) => {
    const folder = await getFolder(q, profile, id);
    await refuseTaken(q, profile, name, folder.id);
    await q.run('UPDATE folders SET name = ?, folded = ? WHERE id = ?', [name, folded(name), folder.id]);
    return { ...folder, name };
  });
}

/** What a conversation's folder is taken back as: none. Not activity, so its place by last activity stays. */
function setFolderEdit(folderId: string | null): (session: Session) => void {
  return (session) => {
    if (folderId === null) delete session.folder;
    else session.folder = folderId;
  };
}

/**
 * Delete the profile's folder: its row first (from then on a move into it is refused), then each conversation
 * in it, deleted ones awaiting Undo too, goes back to no folder. Returns it and the conversations taken out.
 */
export async function deleteFolder(store: SessionStore, profile: string, id: unknown): Promise<{ folder: Folder; moved: string[] }> {
  const folder = await store.transaction(async (q) => {
    const found = await getFolder(q, profile, id);
    await q.run('DELETE FROM folders WHERE id = ?', [found.id]);
    return found;
  });
  const inside = [...store.list(), ...store.listDeleted()].filter((s) => s.folder === folder.id && sessionVisible(s.profile, profile));
  const moved: string[] = [];
  for (const s of inside) {
    // One removed meanwhile has nothing to put back.
    await store.update(s.session_id, setFolderEdit(null), { touch: false, deleted: true }).then(
      () => moved.push(s.session_id),
      (err: unknown) => {
        if (!(err instanceof ValueError)) throw err;
      },
    );
  }
  return { folder, moved };
}

/**
 * Put the conversation in the profile's folder `folderId`, or in none (null). The conversation must be one the
 * profile sees (the caller checked it); the folder must be the profile's.
 */
export async function moveToFolder(store: SessionStore, profile: string, sessionId: string, folderId: unknown): Promise<Session> {
  if (folderId === undefined) throw new ValueError(FOLDER_ID_MISSING);
  if (folderId !== null && typeof folderId !== 'string') throw new ValueError(FOLDER_ID_NOT_STRING);
  if (folderId !== null) await store.query((q) => getFolder(q, profile, folderId));
  return store.update(sessionId, setFolderEdit(folderId), { touch: false });
}

/** The conversation's folder, when it names one of `folders`; undefined for none or one since deleted. */
export function folderOf(session: { folder?: unknown }, folders: readonly Folder[]): Folder | undefined {
  return typeof session.folder === 'string' ? folders.find((f) => f.id === session.folder) : undefined;
}

/** The folder `ref` names among `folders`: by its id, else by its name as a person would type it (folded). */
export function findFolder(folders: readonly Folder[], ref: string): Folder | undefined {
  return folders.find((f) => f.id === ref) ?? folders.find((f) => folded(f.name) === folded(ref.trim()));
}

/**
 * The folders of the profile named `names` (an import's), made when the profile has none of that name: found by
 * the folded name as a person would (an export's "Work" lands in this profile's "work"). A name the profile has
 * no room for (MAX_FOLDERS_PER_PROFILE) or that is no folder name is left out of the answer; `made` lists the
 * folders made, so a failed import can take them back (`removeFolders`).
 */
export async function foldersNamed(store: SessionStore, profile: string, names: readonly string[], now = new Date()): Promise<{ byName: Map<string, Folder>; made: Folder[] }> {
  const byName = new Map<string, Folder>();
  const made: Folder[] = [];
  if (names.length === 0) return { byName, made };
  await store.transaction(async (q) => {
    const existing = await listFolders(q, profile);
    for (const raw of names) {
      let name: string;
      try {
        name = folderName(raw);
      } catch {
        continue;
      }
      const found = existing.find((f) => folded(f.name) === folded(name));
      if (found) {
        byName.set(raw, found);
        continue;
      }
      if (existing.length >= MAX_FOLDERS_PER_PROFILE) continue;
      const folder: Folder = { id: randomBytes(6).toString('hex'), profile, name, created_at: now.toISOString() };
      await q.run('INSERT INTO folders (id, profile, name, folded, created_at) VALUES (?, ?, ?, ?, ?)', [folder.id, profile, name, folded(name), folder.created_at]);
      existing.push(folder);
      made.push(folder);
      byName.set(raw, folder);
    }
  });
  return { byName, made };
}

/** Take back folders an import made (it failed): only while still empty, so nothing moved in since is orphaned. */
export async function removeFolders(store: SessionStore, folders: readonly Folder[]): Promise<void> {
  const used = new Set([...store.list(), ...store.listDeleted()].map((s) => s.folder));
  await store.transaction(async (q) => {
    for (const f of folders) if (!used.has(f.id)) await q.run('DELETE FROM folders WHERE id = ?', [f.id]);
  });
}
