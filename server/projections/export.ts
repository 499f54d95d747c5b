// A conversation as an export carries it (GET /api/session/export, docs/API.md "Export and import"): the same
// projection as GET /api/session (texts through the redactor, the server's values verbatim), with two changes
// that make the file portable and importable back without loss:
// - every attachment path is relative, `attachments/<name inside the session's folder>`, because the absolute
//   path names this machine's state folder and this session's id, neither of which the import keeps;
// - the other versions of the conversation (store/versions.ts, the internal `_versions` of a row) are kept,
//   projected the same way, under the same name, so an import restores every version and not only the one shown.
// A running turn's state (`active_stream_id`, `pending_*`) is not part of the conversation and is left out, as
// are the workspace (a path of this machine; an import uses the profile's default) and the profile.
import path from 'node:path';
import { forkOf } from '../store/versions.js';
import type * as wire from '../core/wire.js';
import { optional, redactText, serverValue, type RedactedText, type ServerValue } from './brand.js';
import { publicAttachment, publicMessage, type PublicAttachment, type PublicChatAttachment, type PublicMessage } from './sessions.js';

/** The format marker every export carries, and the version of the format this Satchel writes and reads. */
export const EXPORT_MARKER = 'satchel_export';
export const EXPORT_VERSION = 1;
/** Where an export keeps a conversation's attachment files, relative to the export's root (and its JSON's paths). */
export const EXPORT_ATTACHMENTS_DIR = 'attachments';

/** The other versions of a row's position, each a whole tail of rows (store/versions.ts `Fork`). */
export interface ExportedFork {
  before: ExportedMessage[][];
  after: ExportedMessage[][];
}

export type ExportedMessage = Omit<PublicMessage, 'versions'> & { _versions?: ExportedFork };

export interface ExportedConversation {
  satchel_export: typeof EXPORT_VERSION;
  exported_at: ServerValue;
  app_version: ServerValue;
  title: RedactedText;
  created_at: ServerValue;
  updated_at: ServerValue;
  /**
   * Who the conversation was with (issue 38, item 5): its own model and system prompt, the name of the agent
   * connection it chose (an id is this machine's; a name can be found again on another) and its folder's name.
   * Each only when it has one.
   */
  model?: RedactedText;
  system_prompt?: RedactedText;
  connection_name?: RedactedText;
  folder?: RedactedText;
  messages: ExportedMessage[];
  attachments: PublicAttachment[];
  /** The composer's unsent draft (drafts/store.ts), when it holds anything: its text and the uploads it names. */
  draft?: ExportedDraft;
}

export interface ExportedDraft {
  text: RedactedText;
  attachments: { path: ServerValue }[];
}

/** What the export reads of a stored session (its rows may carry internal fields, `_versions` among them). */
export interface ExportSource {
  title: string;
  created_at: string;
  updated_at: string;
  model?: string;
  system_prompt?: string;
  messages: readonly wire.Message[];
  attachments: readonly wire.Attachment[];
  /** The conversation's stored draft: an upload only it names is kept by it (drafts/sweep.ts), so it travels too. */
  draft?: { text: string; attachments: readonly { path: string }[] };
}

/** Where the session's files are and which of them the export holds (export/session-files.ts). */
export interface ExportFolder {
  /** The session's attachment folder, absolute. */
  folder: string;
  /** Paths below it the export holds (`/`-separated): its files, and the folders directly in it. */
  held: ReadonlySet<string>;
}

/**
 * `absolute` as the export names it, `attachments/<a/b>`, when the export holds it; undefined otherwise. Satchel
 * stores no attachment outside the session's folder (attachments/extracted.ts refuses any other path), and a
 * file removed from it since cannot be exported: either reference is left out, so every export imports back.
 */
export function exportedPath(where: ExportFolder, absolute: string): string | undefined {
  const rel = path.relative(where.folder, absolute).split(path.sep).join('/');
  if (!where.held.has(rel)) return undefined;
  return `${EXPORT_ATTACHMENTS_DIR}/${rel}`;
}

function exportedChatAttachments(list: readonly PublicChatAttachment[], where: ExportFolder): PublicChatAttachment[] {
  const out: PublicChatAttachment[] = [];
  for (const a of list) {
    const ref = exportedPath(where, a.path);
    if (ref === undefined) continue;
    if (a.kind === 'extraction') {
      const archive = a.archive_path === undefined ? undefined : exportedPath(where, a.archive_path);
      const copy: PublicChatAttachment = { ...a, path: serverValue(ref) };
      if (archive === undefined) delete copy.archive_path;
      else copy.archive_path = serverValue(archive);
      out.push(copy);
    } else {
      out.push({ ...a, path: serverValue(ref) });
    }
  }
  return out;
}

/** One stored row as the export carries it: its projection, paths made relative, its versions kept. */
export function exportedMessage(row: wire.Message, where: ExportFolder): ExportedMessage {
  const { versions: _summary, ...projected } = publicMessage(row);
  const out: ExportedMessage = projected;
  if (projected.attachments) out.attachments = exportedChatAttachments(projected.attachments, where);
  const fork = forkOf(row);
  if (fork) {
    const tails = (list: readonly (readonly wire.Message[])[]) => list.map((tail) => tail.map((r) => exportedMessage(r, where)));
    out._versions = { before: tails(fork.before), after: tails(fork.after) };
  }
  return out;
}

export function exportedAttachment(a: PublicAttachment, where: ExportFolder): PublicAttachment | undefined {
  const ref = exportedPath(where, a.path);
  return ref === undefined ? undefined : { ...a, path: serverValue(ref) };
}

/** A stored upload's record as the export lists it: the fields an import reads (the person's name for it too). */
function publicAttachmentFields(a: wire.Attachment): PublicAttachment {
  const { filename, path: where, size, mime, is_image, display_name } = publicAttachment(a);
  return { filename, path: where, size, mime, is_image, ...(display_name === undefined ? {} : { display_name }) };
}

/** The whole conversation as an export's JSON holds it. */
export function exportedConversation(
  s: ExportSource,
  where: ExportFolder,
  meta: { appVersion: string; now: Date; connectionName?: string; folderName?: string },
): ExportedConversation {
  const attachments: PublicAttachment[] = [];
  for (const a of s.attachments) {
    const projected = exportedAttachment({ ...publicAttachmentFields(a) }, where);
    if (projected) attachments.push(projected);
  }
  return {
    satchel_export: EXPORT_VERSION,
    exported_at: serverValue(meta.now.toISOString()),
    app_version: serverValue(meta.appVersion),
    title: redactText(s.title),
    created_at: serverValue(s.created_at),
    updated_at: serverValue(s.updated_at),
    model: typeof s.model === 'string' && s.model !== '' ? redactText(s.model) : undefined,
    system_prompt: typeof s.system_prompt === 'string' && s.system_prompt !== '' ? redactText(s.system_prompt) : undefined,
    connection_name: optional(meta.connectionName, redactText),
    folder: optional(meta.folderName, redactText),
    messages: s.messages.map((m) => exportedMessage(m, where)),
    attachments,
    ...exportedDraft(s.draft, where),
  };
}

function exportedDraft(draft: ExportSource['draft'], where: ExportFolder): { draft?: ExportedDraft } {
  if (!draft) return {};
  const attachments: { path: ServerValue }[] = [];
  for (const a of draft.attachments) {
    const ref = exportedPath(where, a.path);
    if (ref !== undefined) attachments.push({ path: serverValue(ref) });
  }
  return draft.text || attachments.length > 0 ? { draft: { text: redactText(draft.text), attachments } } : {};
}
