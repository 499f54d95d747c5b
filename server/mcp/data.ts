// What the MCP endpoint reads, independent of the protocol: a profile's sessions, a session's messages and
// attachments, its workspace, and a bounded search. Read-only. Every path an agent names is resolved below
// its root through descriptors (workspace/browse.ts), so traversal, absolute paths and symlinks out are
// refused; every failure is an HttpError or McpDataError with a text safe to show. Texts are redacted here.
import path from 'node:path';
import { agentView, type AgentView } from '../attachments/agent-view.js';
import { ATTACHMENT_NOT_FOUND, openAttachmentPath } from '../attachments/open.js';
import type { App } from '../app.js';
import { HttpError } from '../core/errors.js';
import { guessMime } from '../core/mime.js';
import { officeFormat, officeToMarkdown } from '../office/index.js';
import { readSidecar, sidecarName } from '../office/sidecar.js';
import {
  cutRedacted,
  publicMcpAttachmentRow,
  publicMcpMessage,
  publicMcpNamed,
  publicMcpSessionRow,
  publicSearchHit,
  publicWorkspaceListing,
  redactText,
  type McpAttachmentContent,
  type PublicWorkspaceListing,
  type RedactedText,
} from '../projections/index.js';
import { sessionVisible, visibleSession } from '../store/profiles.js';
import { messageText, SESSION_NOT_FOUND, type Session } from '../store/sessions.js';
import { isHiddenName } from '../core/paths.js';
import { openInside, walkFiles } from '../store/anchored-walk.js';
import { isPdf, looksLikeText, textOf } from '../workspace/file-kind.js';
import { readPdfFile } from '../workspace/pdf.js';
import { Budget as CharBudget } from '../agent/read/budget.js';
import { pdfAgentText } from '../agent/read/pdf.js';
import { withRecognizedPages } from '../agent/read/pdf-ocr.js';
import { listWorkspaceDir, openWorkspaceFile, openWorkspacePath, readWorkspaceBytes, type WorkspacePath } from '../workspace/browse.js';
import type { WorkspaceListing } from '../core/wire.js';
import { IMAGE_TYPES, readImage } from './image-read.js';
import { ARCHIVE_SNIFF_BYTES, archiveFileRead, archiveKindOf } from '../agent/read/archive-file.js';
import { readAt } from '../agent/read/open.js';
import { mcpWorkspaceGuard } from './kept-out.js';
import { SearchRedaction } from './search-redact.js';
import * as L from './limits.js';

/** A refusal that is not about HTTP: shown to the agent as it is. */
export class McpDataError extends Error {}

/**
 * The session `id` names, if MCP may see it. A conversation kept out of MCP (its settings' switch) answers the
 * very 404 of one that does not exist, so a client guessing ids learns nothing about it.
 */
export async function findSession(app: App, profile: string, id: unknown): Promise<Session> {
  const s = await visibleSession(app.sessions, id, profile);
  if (s.keep_out_of_mcp === true) throw new HttpError(404, SESSION_NOT_FOUND);
  return s;
}

export function sessionUri(id: string): string {
  return `satchel://session/${id}`;
}

export function attachmentUri(id: string, name: string): string {
  return `${sessionUri(id)}/attachment/${encodeURIComponent(name)}`;
}

/** A file of the session's workspace, `rel` percent-encoded whole (`docs%2Fplan.md`), like an attachment name. */
export function workspaceUri(id: string, rel: string): string {
  return `${sessionUri(id)}/workspace/${encodeURIComponent(rel)}`;
}

export function listSessions(app: App, profile: string) {
  return app.sessions
    .list()
    .filter((s) => sessionVisible(s.profile, profile) && s.keep_out_of_mcp !== true)
    .map((s) => publicMcpSessionRow(s, sessionUri(s.session_id)));
}

function attachmentNames(list: unknown): string[] {
  if (!Array.isArray(list)) return [];
  return list.map((a: { filename?: unknown; name?: unknown; path?: unknown }) =>
    String(a.filename ?? a.name ?? (typeof a.path === 'string' ? path.basename(a.path) : '')),
  );
}

/** Messages `offset` … `offset + limit`, each text redacted and cut at MAX_MESSAGE_CHARS_IN_READ. */
export async function readSession(app: App, profile: string, id: unknown, offset = 0, limit = L.MAX_MESSAGES_PER_READ) {
  const s = await findSession(app, profile, id);
  const page = s.messages.slice(offset, offset + limit);
  const { session_id, title, workspace, created_at, last_activity, message_count } = publicMcpSessionRow(s, sessionUri(s.session_id));
  return {
    session_id,
    title,
    workspace,
    created_at,
    last_activity,
    message_count,
    offset,
    messages: page.map((m, i) =>
      publicMcpMessage(
        m,
        offset + i,
        cutRedacted(redactText(messageText(m)), (text) => L.truncated(text, L.MAX_MESSAGE_CHARS_IN_READ)),
        attachmentNames(m.attachments).map((name) => publicMcpNamed(name, attachmentUri(s.session_id, name))),
      ),
    ),
    more_messages: Math.max(0, s.messages.length - offset - page.length),
    attachments: s.attachments.map((a) => publicMcpAttachmentRow(a, attachmentUri(s.session_id, a.filename))),
  };
}

/** `name` in the session's attachment folder, held open. */
async function attachmentPath(app: App, sessionId: string, name: string): Promise<WorkspacePath> {
  try {
    return await openAttachmentPath(app.config.stateDir, sessionId, name);
  } catch (err) {
    if (err instanceof HttpError && err.status === 404 && name !== '' && !name.includes('\0')) {
      // The folder itself may be missing: that is "no such attachment", like any other missing name.
      throw new HttpError(404, ATTACHMENT_NOT_FOUND);
    }
    throw err;
  }
}

/** The attachment folder's top level: uploaded files and extracted archives (folders). */
export async function listAttachments(app: App, profile: string, id: unknown): Promise<WorkspaceListing['entries']> {
  const s = await findSession(app, profile, id);
  const at = await attachmentPath(app, s.session_id, '').catch(() => undefined);
  if (!at) return [];
  try {
    return (await listWorkspaceDir(at, L.MAX_WORKSPACE_ENTRIES)).entries;
  } catch {
    return [];
  } finally {
    await at.root.close();
  }
}

/** Leaves through projections/mcp.ts; its text is redacted here, where it is read. `agent_view`: what Satchel's
 *  own agent gets from it, as its chip says (attachments/agent-view.ts, the same sidecar). */
export type AttachmentContent = McpAttachmentContent & { agent_view?: AgentView };

/** What Satchel's agent gets from the attachment `name` (its chip's summary); undefined for a file inside an
 *  extracted archive (no chip of its own) or when it cannot be told: the read itself still answers. */
async function attachmentAgentView(app: App, s: Session, name: string): Promise<AgentView | undefined> {
  if (name.includes('/')) return undefined;
  return agentView(app, s, name).catch(() => undefined);
}

/** Every file of an extracted archive, at most MAX_ARCHIVE_ENTRIES, listed by the one anchored walker (as the
 *  agent and the chip list it). */
async function archiveFiles(at: WorkspacePath): Promise<{ files: string[]; truncated: boolean }> {
  const dir = await openInside(at.root, at.segments);
  try {
    const real = path.relative(at.root.path, dir.path).split(path.sep).filter(Boolean);
    const { files, total, complete } = await walkFiles(dir, L.MAX_ARCHIVE_ENTRIES, real);
    return { files: files.map((f) => f.path), truncated: !complete || total > files.length };
  } finally {
    await dir.close();
  }
}

/**
 * One attachment by name (a file of the session's attachment folder, an extracted archive's folder, or a file
 * inside one as `folder/inner/path`), as its kind decides.
 */
export async function readAttachment(app: App, profile: string, id: unknown, name: string, maxChars = L.MAX_TEXT_CHARS): Promise<AttachmentContent> {
  const s = await findSession(app, profile, id);
  const content = await readAttachmentOf(app, s, name, maxChars).catch((err: unknown) => {
    throw err instanceof HttpError && err.status === 404 ? new HttpError(404, ATTACHMENT_NOT_FOUND) : err;
  });
  const view = await attachmentAgentView(app, s, name);
  return view ? { ...content, agent_view: view } : content;
}

async function readAttachmentOf(app: App, s: Session, name: string, maxChars: number): Promise<AttachmentContent> {
  if (name === '' || path.isAbsolute(name)) throw new McpDataError('An attachment is named relative to the session, e.g. "notes.txt"');
  const at = await attachmentPath(app, s.session_id, name);
  try {
    const base = path.posix.basename(at.segments.join('/'));
    const listing = await listWorkspaceDir(at, 1).catch((err: unknown) => {
      if (err instanceof HttpError && err.status === 400) return undefined; // a file
      throw err;
    });
    if (listing) {
      const { files, truncated } = await archiveFiles(at);
      // Names the extractor wrote, which the agent sends back to read one: never redacted.
      return { kind: 'archive', name: base, files, truncated };
    }
    const mime = guessMime(base);
    const format = officeFormat(base);
    if (format) return await readOffice(at, base, format, maxChars);
    if (IMAGE_TYPES.has(mime)) return await readImage(at, base, mime);
    const archive = await readArchiveFile(at, base, mime, maxChars);
    if (archive) return archive;
    const { bytes, size } = await readWorkspaceBytes(at, L.MAX_READ_BYTES, true);
    if (isPdf(bytes)) return await readPdfAttachment(at, base, maxChars);
    if (!looksLikeText(bytes)) return { kind: 'binary', name: base, mime, size, note: 'binary file: content not returned' };
    return { kind: 'text', name: base, mime, size, text: readText(bytes, size, maxChars), source: 'file' };
  } finally {
    await at.root.close();
  }
}

/**
 * An archive stored as it came (not extracted): its file list and small text members, as the agent gets them
 * (agent/read/archive-file.ts, the same function), within `maxChars`; undefined when the file is no archive.
 */
async function readArchiveFile(at: WorkspacePath, base: string, mime: string, maxChars: number): Promise<AttachmentContent | undefined> {
  const file = await openWorkspaceFile(at);
  try {
    const kind = archiveKindOf(base, await readAt(file.handle, Math.min(file.size, ARCHIVE_SNIFF_BYTES)));
    if (!kind) return undefined;
    // Named by its attachment name, never by where it lies on this machine.
    const read = await archiveFileRead(file, kind, base, mime, base, new CharBudget(maxChars));
    const joined = read.parts.map((p) => (p.type === 'text' ? p.text : '')).join('\n\n');
    return { kind: 'text', name: base, mime, size: file.size, text: cutRedacted(redactText(joined), (t) => L.truncated(t, maxChars)), source: 'archive-listing' };
  } finally {
    await file.close();
  }
}

/** Decoded, redacted, cut at `maxChars`; a file read only in part says how many bytes were left. */
function readText(bytes: Buffer, size: number, maxChars: number): RedactedText {
  const text = cutRedacted(redactText(textOf(bytes)), (t) => L.truncated(t, maxChars));
  if (size > bytes.length && text.length <= maxChars) return cutRedacted(text, (t) => `${t}\n[… truncated: ${size - bytes.length} more bytes]`);
  return text;
}

/** The sidecar beside the Office file `at` names, read in the folder holding it (office/sidecar.ts). */
async function storedSidecar(at: WorkspacePath, maxBytes: number): Promise<{ bytes: Buffer; size: number } | undefined> {
  const dir = await openInside(at.root, at.segments.slice(0, -1)).catch(() => undefined);
  if (!dir) return undefined;
  try {
    return await readSidecar(dir, at.segments.at(-1)!, maxBytes);
  } finally {
    await dir.close();
  }
}

/** A PDF (by its bytes) as the agent gets it in a turn: its pages' text under their markers, cut at `maxChars`
 *  (agent/read/pdf.ts); one that could not be read, by the chip's words for why. */
async function readPdfAttachment(at: WorkspacePath, base: string, maxChars: number): Promise<AttachmentContent> {
  const file = await openWorkspaceFile(at);
  try {
    const got = pdfAgentText(await withRecognizedPages(await readPdfFile(file), file), base, new CharBudget(maxChars), (why) => why);
    if (got.whole === undefined) return { kind: 'binary', name: base, mime: 'application/pdf', size: file.size, note: `PDF whose text could not be read: ${got.text}` };
    return { kind: 'text', name: base, mime: 'application/pdf', size: file.size, text: redactText(got.text), source: 'pdf' };
  } finally {
    await file.close();
  }
}

async function readOffice(at: WorkspacePath, base: string, format: NonNullable<ReturnType<typeof officeFormat>>, maxChars: number): Promise<AttachmentContent> {
  const mime = guessMime(base);
  // A sidecar written beside the file (uploads write one) is the conversion already done.
  const stored = await storedSidecar(at, L.MAX_READ_BYTES);
  if (stored) return { kind: 'text', name: base, mime, size: stored.size, text: readText(stored.bytes, stored.size, maxChars), source: 'office-sidecar' };
  // Opened through the anchored walk and converted from that descriptor: a path handed to the converter could be
  // sent outside by a folder swapped for a symlink in between.
  const file = await openWorkspaceFile(at);
  try {
    const markdown = await officeToMarkdown(file.handle, format);
    return { kind: 'text', name: base, mime, size: file.size, text: cutRedacted(redactText(markdown), (t) => L.truncated(t, maxChars)), source: 'office' };
  } catch {
    return { kind: 'binary', name: base, mime, size: file.size, note: 'Office document that could not be converted to Markdown' };
  } finally {
    await file.close();
  }
}

export async function listWorkspace(app: App, profile: string, id: unknown, requested: string): Promise<PublicWorkspaceListing> {
  const s = await findSession(app, profile, id);
  const workspace = await app.workspaces.validate(s.workspace);
  const at = await openWorkspacePath(workspace, requested, false, await mcpWorkspaceGuard(app, profile));
  try {
    const listing = await listWorkspaceDir(at, L.MAX_WORKSPACE_ENTRIES);
    return publicWorkspaceListing(listing);
  } finally {
    await at.root.close();
  }
}

export async function readWorkspaceFile(app: App, profile: string, id: unknown, requested: string, maxChars = L.MAX_TEXT_CHARS) {
  const s = await findSession(app, profile, id);
  const workspace = await app.workspaces.validate(s.workspace);
  const at = await openWorkspacePath(workspace, requested, false, await mcpWorkspaceGuard(app, profile));
  try {
    const { bytes, size, path: rel } = await readWorkspaceBytes(at, L.MAX_READ_BYTES, true);
    if (!looksLikeText(bytes)) return { path: rel, size, binary: true as const };
    return { path: rel, size, binary: false as const, text: readText(bytes, size, maxChars) };
  } finally {
    await at.root.close();
  }
}

export interface SearchHit {
  where: 'message' | 'attachment' | 'workspace';
  /** The message index, or the file's path below its root. */
  ref: string;
  /** A resource to read: the session (for a message), the attachment, or the workspace file. */
  uri: string;
  snippet: string;
}

/** Budget shared by one search: files opened and bytes read. */
interface Budget {
  files: number;
  bytes: number;
  exhausted: boolean;
}

function findIn(text: string, needle: string, push: (snippet: string) => boolean): void {
  const hay = text.toLowerCase();
  for (let at = hay.indexOf(needle); at !== -1; at = hay.indexOf(needle, at + needle.length)) {
    const start = Math.max(0, at - L.SNIPPET_CONTEXT_CHARS);
    const end = Math.min(text.length, at + needle.length + L.SNIPPET_CONTEXT_CHARS);
    if (!push(`${start > 0 ? '…' : ''}${text.slice(start, end)}${end < text.length ? '…' : ''}`)) return;
  }
}

/** Text files under `at`, breadth first, hidden entries and credential stores skipped, within the budget. */
async function searchTree(
  at: WorkspacePath,
  budget: Budget,
  redaction: SearchRedaction,
  onText: (rel: string, text: string) => boolean,
  skip: ReadonlySet<string> = new Set(),
): Promise<void> {
  const queue: string[][] = [at.segments];
  while (queue.length > 0 && !budget.exhausted) {
    const segments = queue.shift()!;
    const listing = await listWorkspaceDir({ ...at, segments }, L.MAX_WORKSPACE_ENTRIES).catch(() => undefined);
    if (!listing) continue;
    for (const e of listing.entries) {
      if (isHiddenName(e.name)) continue;
      const child = [...segments, e.name];
      if (skip.has(child.join('/'))) continue;
      if (e.type === 'dir') {
        queue.push(child);
        continue;
      }
      if (budget.files >= L.MAX_SEARCH_FILES || budget.bytes >= L.MAX_SEARCH_BYTES) {
        budget.exhausted = true;
        return;
      }
      budget.files++;
      const format = officeFormat(e.name);
      if (format && !listing.entries.some((x) => x.name === sidecarName(e.name))) {
        // A file dropped in the composer has no sidecar until a chat turn writes one: search its Markdown
        // (readOffice converts within the Office module's own bounds), not its zip bytes.
        const office = await readOffice({ ...at, segments: child }, e.name, format, L.MAX_SEARCH_FILE_BYTES).catch(() => undefined);
        if (office?.kind !== 'text') continue;
        budget.bytes += Buffer.byteLength(office.text);
        if (!onText(child.join('/'), office.text)) {
          budget.exhausted = true;
          return;
        }
        continue;
      }
      const want = Math.min(L.MAX_SEARCH_FILE_BYTES, L.MAX_SEARCH_BYTES - budget.bytes);
      const read = await readWorkspaceBytes({ ...at, segments: child }, want, true).catch(() => undefined);
      if (!read) continue;
      budget.bytes += read.bytes.length;
      if (!looksLikeText(read.bytes)) continue;
      const text = redaction.text(textOf(read.bytes));
      if (text === undefined || (text !== '' && !onText(child.join('/'), text))) {
        budget.exhausted = true;
        return;
      }
      // A file at a time: whatever else waits on the event loop (a /health, a save) runs between two.
      if (text !== '') await new Promise((resolve) => setImmediate(resolve));
    }
  }
}

/**
 * Search a session: its messages and the text the agent got from its attachments through the search index
 * (store/search.ts: words, the last one a prefix, ranked by bm25, secrets masked before indexing, so a snippet
 * never shows part of one); then, by a case-insensitive substring search, the attachment folder's text files the
 * index does not hold (an extracted archive's files, an Office file no turn has converted yet) and its
 * workspace's text files. The walk is linear in the text looked at, which is bounded: MAX_SEARCH_FILES files,
 * MAX_SEARCH_BYTES bytes in all (MAX_SEARCH_FILE_BYTES of each), MAX_SEARCH_RESULTS hits. Secrets are masked
 * before matching there too, in the files that can hold the query only, within a budget (mcp/search-redact.ts).
 */
export async function search(app: App, profile: string, id: unknown, query: string, maxResults = L.MAX_SEARCH_RESULTS) {
  const s = await findSession(app, profile, id);
  const needle = query.toLowerCase();
  if (!needle.trim()) throw new McpDataError('The query is empty');
  const hits: SearchHit[] = [];
  const push = (hit: Omit<SearchHit, 'snippet'>) => (snippet: string): boolean => {
    hits.push({ ...hit, snippet });
    return hits.length < maxResults;
  };
  const indexed = await app.sessions.search(profile, query, maxResults, { sessionId: s.session_id, kinds: ['message', 'attachment_text'] });
  for (const hit of indexed.hits) {
    const snippet = hit.snippet.map((part) => part.text).join('');
    if (hit.kind === 'message') hits.push({ where: 'message', ref: String(hit.position), uri: sessionUri(s.session_id), snippet });
    else if (hit.attachment !== undefined) hits.push({ where: 'attachment', ref: hit.attachment, uri: attachmentUri(s.session_id, hit.attachment), snippet });
  }
  // An attachment whose text the index holds is not walked again, nor its sidecar.
  const inIndex = new Set((await app.sessions.indexedAttachmentNames(s.session_id)).flatMap((name) => [name, sidecarName(name)]));
  const budget: Budget = { files: 0, bytes: 0, exhausted: hits.length >= maxResults || !indexed.complete };
  const redaction = new SearchRedaction(needle);
  const attachments = await attachmentPath(app, s.session_id, '').catch(() => undefined);
  if (attachments) {
    try {
      await searchTree(
        attachments,
        budget,
        redaction,
        (rel, text) => {
          findIn(text, needle, push({ where: 'attachment', ref: rel, uri: attachmentUri(s.session_id, rel) }));
          return hits.length < maxResults;
        },
        inIndex,
      );
    } finally {
      await attachments.root.close();
    }
  }
  if (!budget.exhausted) {
    const workspace = await app.workspaces.validate(s.workspace).catch(() => undefined);
    const guard = await mcpWorkspaceGuard(app, profile);
    const at = workspace ? await openWorkspacePath(workspace, '', false, guard).catch(() => undefined) : undefined;
    if (at) {
      try {
        await searchTree(at, budget, redaction, (rel, text) => {
          findIn(text, needle, push({ where: 'workspace', ref: rel, uri: workspaceUri(s.session_id, rel) }));
          return hits.length < maxResults;
        });
      } finally {
        await at.root.close();
      }
    }
  }
  return {
    query: redactText(query),
    results: hits.slice(0, maxResults).map(publicSearchHit),
    files_searched: budget.files,
    bytes_searched: budget.bytes,
    complete: !budget.exhausted && hits.length < maxResults,
    // The index search ran out of time (store/search.ts SEARCH_STOPPED): what it found is shown, and it says so.
    ...(indexed.stopped !== undefined ? { note: redactText(indexed.stopped) } : {}),
  };
}
