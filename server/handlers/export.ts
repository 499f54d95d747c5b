// Export and import of conversations (docs/API.md "Export and import"): one conversation as Markdown or JSON,
// every conversation of the profile in one archive, and an export back as a new conversation.
import type { HandlerInput } from '../app.js';
import { HttpError, ValueError } from '../core/errors.js';
import { sanitizeName } from '../core/names.js';
import { readDraft, type StoredDraft } from '../drafts/store.js';
import { conversationMarkdown } from '../export/markdown.js';
import { EXPORT_JSON_NAME, importConversations, type ImportResult } from '../export/import.js';
import { conversationParts } from '../export/conversation-parts.js';
import { conversationForExport, type ExportedSource } from '../export/read-conversation.js';
import { MAX_EXPORT_FILES, sessionFiles, type SessionFiles } from '../export/session-files.js';
import { sendZip, type ZipWriter } from '../export/zip-out.js';
import { parseMultipart } from '../http/multipart.js';
import { sendJson, sendText } from '../http/respond.js';
import { EXPORT_ATTACHMENTS_DIR, exportedConversation, type ExportedConversation } from '../projections/export.js';
import { publicSession, publicSessionSummary, redactText } from '../projections/index.js';
import { sessionVisible, visibleSession } from '../store/profiles.js';
import { folderOf, listFolders } from '../store/folders.js';
import { listConnections } from '../agent/connections.js';
import { isSessionId, sessionSummary, type Session } from '../store/sessions.js';
import { contentDisposition } from '../workspace/raw.js';

export const EXPORT_MARKDOWN_NAME = 'conversation.md';
export const BAD_FORMAT = 'format must be md or json';
/** Characters of a title a download's file name keeps: enough to recognise it, short enough for any disk. */
const MAX_TITLE_IN_NAME = 60;

type Format = 'md' | 'json';

function formatOf(value: string | null): Format {
  if (value === null || value === '' || value === 'json') return 'json';
  if (value === 'md') return 'md';
  throw new ValueError(BAD_FORMAT);
}

/** A title as part of a file name: the upload rules' sanitizing (core/names.ts), `conversation` when nothing is left. */
export function nameOf(title: string): string {
  return sanitizeName(title, MAX_TITLE_IN_NAME) ?? 'conversation';
}

/** A conversation's connection and folder by name, as an export carries them (a name means something elsewhere). */
type NamesOf = (session: Session) => { connectionName?: string; folderName?: string };

/** The profile's connections and folders, read once per export. */
async function namesFor(app: HandlerInput['app'], profile: string): Promise<NamesOf> {
  const { connections } = listConnections(app.config.stateDir, process.env, app.agentKeyStore);
  const folders = await app.sessions.query((q) => listFolders(q, profile));
  return (session) => ({
    connectionName: typeof session.connection === 'string' ? connections.find((c) => c.id === session.connection)?.name : undefined,
    folderName: folderOf(session, folders)?.name,
  });
}

function documentOf(app: HandlerInput['app'], session: Session, files: SessionFiles, draft: StoredDraft, names: NamesOf): ExportedConversation {
  return exportedConversation({ ...session, draft }, { folder: files.folder, held: files.held }, { appVersion: app.version, now: new Date(), ...names(session) });
}

/** One conversation's members under `prefix` (`''` or a folder ending in `/`). */
function addConversation(zip: ZipWriter, prefix: string, doc: () => ExportedConversation, files: SessionFiles, formats: readonly Format[]): void {
  if (formats.includes('json')) zip.addText(`${prefix}${EXPORT_JSON_NAME}`, () => JSON.stringify(doc(), null, 2));
  if (formats.includes('md')) zip.addText(`${prefix}${EXPORT_MARKDOWN_NAME}`, () => conversationMarkdown(doc()));
  for (const f of files.files) zip.addFile(`${prefix}${EXPORT_ATTACHMENTS_DIR}/${f.path}`, files.folder, f.path);
}

/** GET /api/session/export?session_id=&format=md|json */
export async function exportSession({ ctx, app, profile }: HandlerInput): Promise<void> {
  const format = formatOf(ctx.url.searchParams.get('format'));
  const session = await visibleSession(app.sessions, ctx.url.searchParams.get('session_id'), profile);
  const files = await sessionFiles(app.config.stateDir, session.session_id);
  const doc = documentOf(app, session, files, await readDraft(app.config.stateDir, session.session_id), await namesFor(app, profile));
  const name = nameOf(doc.title);
  if (format === 'json' && files.files.length === 0) {
    // Nothing to carry beside it: the JSON alone, which imports back as it is.
    sendText(ctx, 200, JSON.stringify(doc, null, 2), {
      contentType: 'application/json; charset=utf-8',
      headers: { 'Content-Disposition': contentDisposition('attachment', `${name}.json`) },
    });
    return;
  }
  await sendZip(ctx, `${name}${format === 'md' ? '' : '.satchel'}.zip`, async (zip) => addConversation(zip, '', () => doc, files, [format]));
}

/**
 * GET /api/sessions/export: every conversation of the profile in one .zip, each in its own folder holding its
 * JSON (which imports back), its Markdown and its files. The archive is sent as it is made: one conversation at a
 * time, when the download reaches it, its rows read in pages as its JSON takes them (export/read-conversation.ts,
 * not kept by the store) and written a row at a time (export/conversation-parts.ts); the next conversation only
 * once its Markdown is written, so a paused download stops the reading too.
 */
export async function exportAllSessions({ ctx, app, profile }: HandlerInput): Promise<void> {
  const chosen = chosenIds(ctx.url.searchParams.get('session_ids'));
  const visible = app.sessions.list().filter((s) => sessionVisible(s.profile, profile));
  const sessions = chosen ? visible.filter((s) => chosen.has(s.session_id)) : visible;
  // A conversation named but not listed (deleted meanwhile, another profile's, never made): not a smaller archive.
  if (chosen && sessions.length !== chosen.size) throw new HttpError(404, 'Session not found');
  const day = new Date().toISOString().slice(0, 10);
  // A damaged database (store/db/damage.ts): an archive holding nothing read would pass for a backup, so it is
  // refused with what to do unless at least one conversation can still be read.
  if (app.sessions.damage && !(await anyReadable(app, sessions.map((s) => s.session_id)))) throw new HttpError(503, NOTHING_READABLE);
  const names = await namesFor(app, profile);
  await sendZip(ctx, `satchel-conversations-${day}.zip`, async (zip, signal) => {
    const notExported: string[] = [];
    const tooManyFiles: string[] = [];
    for (const listed of sessions) {
      if (signal.aborted) return;
      const named = `${listed.session_id}  ${redactText(listed.title)}`;
      let files: SessionFiles;
      try {
        files = await sessionFiles(app.config.stateDir, listed.session_id);
      } catch (err) {
        // More files than an import takes back: named in the archive (the answer has started: no 413 now).
        if (err instanceof HttpError && err.status === 413) {
          tooManyFiles.push(named);
          continue;
        }
        throw err;
      }
      // The session as it is when the download reaches it, not when the list was taken; one deleted meanwhile
      // is left out.
      let source: ExportedSource | undefined;
      try {
        source = await conversationForExport(app.sessions, listed.session_id);
      } catch {
        // Damaged where it is stored: named in the archive, never left out in silence.
        notExported.push(named);
        continue;
      }
      if (!source) continue;
      const draft = await readDraft(app.config.stateDir, listed.session_id);
      const head = documentOf(app, source.session, files, draft, names);
      const folder = `${listed.created_at.slice(0, 10)} ${nameOf(redactText(listed.title))} ${listed.session_id}/`;
      const parts = conversationParts(head, source.rows, files);
      void zip.addParts(`${folder}${EXPORT_JSON_NAME}`, () => parts.json());
      const written = zip.addParts(`${folder}${EXPORT_MARKDOWN_NAME}`, () => parts.markdown());
      for (const f of files.files) zip.addFile(`${folder}${EXPORT_ATTACHMENTS_DIR}/${f.path}`, files.folder, f.path);
      source = undefined;
      // Its rows are let go once its Markdown is written; the next conversation is read only then.
      await written;
    }
    if (notExported.length > 0 || tooManyFiles.length > 0) zip.addText(NOT_EXPORTED_NAME, () => notExportedText(notExported, tooManyFiles));
  });
}

/** Most conversations `session_ids` names: the list's multi-select exports a handful; 500 ids are ~6.5 KB of address. */
export const MAX_EXPORT_IDS = 500;
export const BAD_SESSION_IDS = `session_ids must be 1 to ${MAX_EXPORT_IDS} session ids separated by commas`;

/** `session_ids` of GET /api/sessions/export (the list's "Export" of the selected): null when absent (all). */
function chosenIds(value: string | null): Set<string> | null {
  if (value === null) return null;
  const ids = value.split(',');
  if (ids.length > MAX_EXPORT_IDS || !ids.every((id) => isSessionId(id))) throw new ValueError(BAD_SESSION_IDS);
  return new Set(ids);
}

function notExportedText(unreadable: readonly string[], tooManyFiles: readonly string[]): string {
  const sections: string[] = [];
  if (unreadable.length > 0) sections.push(`${NOT_EXPORTED_TEXT}\n\n${unreadable.join('\n')}\n`);
  if (tooManyFiles.length > 0) sections.push(`${TOO_MANY_FILES_TEXT}\n\n${tooManyFiles.join('\n')}\n`);
  return sections.join('\n');
}

export const NOTHING_READABLE = 'The conversation database is damaged and no conversation in it can be read, so there is nothing to export: open Settings → Backups to restore a backup';
/** The member of an "Export all" archive naming the conversations that could not be read. */
export const NOT_EXPORTED_NAME = 'NOT EXPORTED.txt';
export const NOT_EXPORTED_TEXT = 'These conversations could not be read from the damaged database and are not in this archive (Settings → Backups may bring them back):';
export const TOO_MANY_FILES_TEXT = `These conversations have more than ${MAX_EXPORT_FILES} attachment files, more than an export can hold, and are not in this archive (remove files from one to export it):`;

async function anyReadable(app: HandlerInput['app'], ids: readonly string[]): Promise<boolean> {
  for (const id of ids) {
    try {
      if (await app.sessions.get(id)) return true;
    } catch {
      // Not readable: try the next.
    }
  }
  return false;
}

/**
 * POST /api/session/import (multipart, field `file`): the export as new conversations of the caller's profile.
 * One conversation's export answers `{session}`; an "Export all" archive `{session, sessions}`: the first
 * conversation whole (the original's clients read `session`), and every one imported as the list shows it.
 */
export async function importSession({ ctx, app, profile }: HandlerInput): Promise<void> {
  const form = await parseMultipart(ctx, { stagingDir: app.stagingDir, capBytes: app.config.maxUploadBytes });
  let result: ImportResult;
  try {
    const file = form.requireFile('file');
    result = await importConversations(app, file.stagedPath, profile, ctx.signal);
  } finally {
    await form.cleanup();
  }
  const { sessions, missingConnections } = result;
  for (const session of sessions) app.events.publish({ name: 'session_created', profile, data: { session: sessionSummary(session) } });
  if (sessions.some((s) => s.folder !== undefined)) app.events.publish({ name: 'folders_changed', profile, data: { folder_id: sessions.find((s) => s.folder !== undefined)!.folder! } });
  const many = sessions.length > 1 ? { sessions: sessions.map(publicSessionSummary) } : {};
  // The agent connections the export named that this machine has none of: those conversations use the default.
  const missing = missingConnections.length > 0 ? { missing_connections: missingConnections.map(redactText) } : {};
  await sendJson(ctx, 200, { session: publicSession(sessions[0]!), ...many, ...missing });
}
