// Folder routes (docs/API.md "Folders"): list, create, rename, delete a folder of the caller's profile, and move a
// conversation into one or out of any. A folder of another profile is answered as missing, as its conversations are.
import { requireFields } from '../core/errors.js';
import { readJsonBody } from '../http/body.js';
import type { HandlerInput as HandlerInputOf, Host } from '../http/lifecycle.js';
import type { EventBus } from '../store/events.js';
import { sendJson } from '../http/respond.js';
import { publicFolder, publicSessionSummary } from '../projections/index.js';
import {
  createFolder,
  deleteFolder,
  listFolders,
  MAX_FOLDER_NAME_CHARS,
  MAX_FOLDERS_PER_PROFILE,
  moveToFolder,
  renameFolder,
  type Folder,
} from '../store/folders.js';
import { sessionVisible, visibleSession } from '../store/profiles.js';
import type { SessionStore } from '../store/sessions.js';

/** What these routes use of the application: its conversations and its event bus, not the whole of it. */
type HandlerInput = HandlerInputOf<Host & { sessions: SessionStore; events: EventBus }>;

/** How many of the profile's live conversations each folder holds. */
function counts(sessions: SessionStore, profile: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of sessions.list()) {
    if (typeof s.folder === 'string' && sessionVisible(s.profile, profile)) out.set(s.folder, (out.get(s.folder) ?? 0) + 1);
  }
  return out;
}

function answerFolder(input: HandlerInput, folder: Folder): Promise<void> {
  const count = counts(input.app.sessions, input.profile).get(folder.id) ?? 0;
  return sendJson(input.ctx, 200, { folder: publicFolder(folder, count) });
}

/** GET /api/folders `{folders, max_folders, max_name_chars}`: the profile's folders by name. */
export async function getFolders({ ctx, app, profile }: HandlerInput): Promise<void> {
  const folders = await app.sessions.query((q) => listFolders(q, profile));
  const inside = counts(app.sessions, profile);
  await sendJson(ctx, 200, {
    folders: folders.map((f) => publicFolder(f, inside.get(f.id) ?? 0)),
    max_folders: MAX_FOLDERS_PER_PROFILE,
    max_name_chars: MAX_FOLDER_NAME_CHARS,
  });
}

/** POST /api/folders/new `{name}` → `{folder}`. */
export async function newFolder(input: HandlerInput): Promise<void> {
  const { ctx, app, profile } = input;
  const body = await readJsonBody(ctx);
  requireFields(body, ['name']);
  const folder = await createFolder(app.sessions, profile, body.name);
  app.events.publish({ name: 'folders_changed', profile, data: { folder_id: folder.id } });
  await answerFolder(input, folder);
}

/** POST /api/folders/rename `{folder_id, name}` → `{folder}`. */
export async function renameFolderRoute(input: HandlerInput): Promise<void> {
  const { ctx, app, profile } = input;
  const body = await readJsonBody(ctx);
  requireFields(body, ['folder_id', 'name']);
  const folder = await renameFolder(app.sessions, profile, body.folder_id, body.name);
  app.events.publish({ name: 'folders_changed', profile, data: { folder_id: folder.id } });
  await answerFolder(input, folder);
}

/**
 * POST /api/folders/delete `{folder_id}` → `{folder, moved}`: the folder as it was (`count` 0: it holds none now)
 * and how many conversations went back to no folder.
 */
export async function deleteFolderRoute({ ctx, app, profile }: HandlerInput): Promise<void> {
  const body = await readJsonBody(ctx);
  requireFields(body, ['folder_id']);
  const { folder, moved } = await deleteFolder(app.sessions, profile, body.folder_id);
  app.events.publish({ name: 'folders_changed', profile, data: { folder_id: folder.id } });
  await sendJson(ctx, 200, { folder: publicFolder(folder, 0), moved: moved.length });
}

/**
 * POST /api/session/folder `{session_id, folder_id}` → `{session}` (its summary): into the profile's folder, or
 * out of any (`folder_id: null`). Not activity: its place by last activity stays.
 */
export async function moveSessionToFolder({ ctx, app, profile }: HandlerInput): Promise<void> {
  const body = await readJsonBody(ctx);
  requireFields(body, ['session_id']);
  const current = await visibleSession(app.sessions, body.session_id, profile);
  const session = await moveToFolder(app.sessions, profile, current.session_id, body.folder_id);
  app.events.publish({ name: 'session_updated', profile, data: { session_id: session.session_id } });
  await sendJson(ctx, 200, { session: publicSessionSummary(session) });
}
