// What the MCP endpoint reads, independent of the protocol: a profile's sessions, a session's messages and
// attachments, its workspace, and a bounded search. Read-only. Every path an agent names is resolved below
// its root through descriptors (store/anchored-browse.ts), so traversal, absolute paths and symlinks out are
// refused; every failure is an HttpError or McpDataError with a text safe to show. Texts are redacted here.
import path from 'node:path';
import { agentView, type AgentView } from '../attachments/agent-view.js';
import { ATTACHMENT_NOT_FOUND, openAttachmentPath } from '../attachments/open.js';
import type { App } from '../app.js';
import { HttpError } from '../core/errors.js';
import { classify, textOf } from '../content/index.js';
import { sidecarName } from '../office/sidecar.js';
import {
  cutRedacted,
  publicMcpAttachmentRow,
  publicMcpMessage,
  publicMcpNamed,
  publicMcpSessionRow,
  publicCrossSearchHit,
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
import { attachmentUri, sessionUri, workspaceUri } from '../core/satchel-uri.js';
import { openInside, walkFiles } from '../store/anchored-walk.js';
import { listWorkspaceDir, openWorkspaceFile, openWorkspacePath, readWorkspaceBytes, type WorkspacePath } from '../store/anchored-browse.js';
import type { WorkspaceListing } from '../core/wire.js';
import { readFileContent, readOffice, type ReadFileOptions } from './read-file.js';
import type { McpScope } from './scope.js';
import { SearchRedaction } from './search-redact.js';
import * as L from './limits.js';

/** A refusal that is not about HTTP: shown to the agent as it is. */
export class McpDataError extends Error {}

/** What a file read needs of the app: speech-to-text's settings for audio, the server's stop. */
function readOptions(app: App): ReadFileOptions {
  return { stateDir: app.config.stateDir, signal: app.stopping };
}

/**
 * The session `id` names, if MCP may see it. A conversation kept out of MCP (its settings' switch) answers the
 * very 404 of one that does not exist, so a client guessing ids learns nothing about it.
 */
export function findSession(scope: McpScope<App>, id: unknown): Promise<Session> {
  // The key's grants decide too (mcp/scope.ts): outside them, the same 404.
  return scope.session(id);
}

// The URIs live in core/ (satchel-uri.ts): the turn names files by them too.
export { attachmentUri, sessionUri, workspaceUri } from '../core/satchel-uri.js';

/** list_sessions' filters: `folder`, a folder's id or name (mcp/scope.ts sessionsInFolder); `title`, a
 *  case-insensitive part of the title (as the person's redactor shows it); `recent`, only the N most recently active. */
export interface SessionFilters {
  folder?: string;
  title?: string;
  recent?: number;
}

/** The conversations the key may see (visible in the profile, not kept out of MCP, granted: mcp/scope.ts), the
 *  latest active first when `recent` is asked, filtered as `filters` say. */
export async function listSessions(scope: McpScope<App>, filters: SessionFilters = {}) {
  const listed = await (filters.folder === undefined ? scope.sessions() : scope.sessionsInFolder(filters.folder));
  let rows = listed.map((s) => publicMcpSessionRow(s, sessionUri(s.session_id)));
  const part = filters.title?.trim().toLowerCase();
  if (part) rows = rows.filter((r) => String(r.title).toLowerCase().includes(part));
  if (filters.recent !== undefined) rows = [...rows].sort((a, b) => Date.parse(String(b.last_activity)) - Date.parse(String(a.last_activity))).slice(0, filters.recent);
  return rows;
}

/** A message's attachments: the stored name each is read back by, and the name the person gave it (issue 38). */
function attachmentNames(list: unknown): { name: string; shown: string | undefined }[] {
  if (!Array.isArray(list)) return [];
  return list.map((a: { filename?: unknown; name?: unknown; path?: unknown; display_name?: unknown }) => ({
    name: String(a.filename ?? a.name ?? (typeof a.path === 'string' ? path.basename(a.path) : '')),
    shown: typeof a.display_name === 'string' && a.display_name ? a.display_name : undefined,
  }));
}

/** The names the person gave a session's files, by stored name (the attachment folder lists stored names). */
export function shownNames(s: Pick<Session, 'attachments'>): Map<string, string> {
  return new Map(s.attachments.flatMap((a) => (a.display_name ? [[a.filename, a.display_name] as const] : [])));
}

/** Messages `offset` … `offset + limit`, each text redacted and cut at MAX_MESSAGE_CHARS_IN_READ. */
export async function readSession(scope: McpScope<App>, id: unknown, offset = 0, limit = L.MAX_MESSAGES_PER_READ) {
  const { app, profile } = scope;
  const s = await findSession(scope, id);
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
        attachmentNames(m.attachments).map(({ name, shown }) => publicMcpNamed(name, attachmentUri(s.session_id, name), shown)),
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

/** The attachment folder's top level: uploaded files and extracted archives (folders), each with the name the
 *  person gave it where that is not its stored one (`shown`). */
export async function listAttachments(scope: McpScope<App>, id: unknown): Promise<(WorkspaceListing['entries'][number] & { shown?: string })[]> {
  const { app, profile } = scope;
  const s = await findSession(scope, id);
  const at = await attachmentPath(app, s.session_id, '').catch(() => undefined);
  if (!at) return [];
  try {
    const shown = shownNames(s);
    return (await listWorkspaceDir(at, L.MAX_WORKSPACE_ENTRIES)).entries.map((e) => (shown.has(e.name) ? { ...e, shown: shown.get(e.name) } : e));
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
export async function readAttachment(scope: McpScope<App>, id: unknown, name: string, maxChars = L.MAX_TEXT_CHARS): Promise<AttachmentContent> {
  const { app, profile } = scope;
  const s = await findSession(scope, id);
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
    return await readFileContent(at, base, maxChars, readOptions(app));
  } finally {
    await at.root.close();
  }
}

/** A workspace place's real path: the opened root's and the real segments below it. */
const placeOf = (at: WorkspacePath): string => path.join(at.root.path, ...at.segments);

export async function listWorkspace(scope: McpScope<App>, id: unknown, requested: string): Promise<PublicWorkspaceListing> {
  const { app, profile } = scope;
  const s = await findSession(scope, id);
  const workspace = await app.workspaces.validate(s.workspace);
  const at = await openWorkspacePath(workspace, requested, false, await scope.workspaceGuard());
  try {
    await scope.checkRoots(placeOf(at));
    const listing = await listWorkspaceDir(at, L.MAX_WORKSPACE_ENTRIES);
    return publicWorkspaceListing(listing);
  } finally {
    await at.root.close();
  }
}

export async function readWorkspaceFile(scope: McpScope<App>, id: unknown, requested: string, maxChars = L.MAX_TEXT_CHARS) {
  const { app, profile } = scope;
  const s = await findSession(scope, id);
  const workspace = await app.workspaces.validate(s.workspace);
  const at = await openWorkspacePath(workspace, requested, false, await scope.workspaceGuard());
  try {
    await scope.checkRoots(placeOf(at));
    // By what the content engine says the file is, as read_attachment reads one (mcp/read-file.ts).
    const content = await readFileContent(at, path.posix.basename(at.segments.join('/')), maxChars, readOptions(app));
    return { path: at.segments.join('/'), content };
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
      const want = Math.min(L.MAX_SEARCH_FILE_BYTES, L.MAX_SEARCH_BYTES - budget.bytes);
      const read = await readWorkspaceBytes({ ...at, segments: child }, want, true).catch(() => undefined);
      if (!read) continue;
      const kind = classify(e.name, read.bytes);
      if (kind.kind === 'office' && !listing.entries.some((x) => x.name === sidecarName(e.name))) {
        // A file dropped in the composer has no sidecar until a chat turn writes one: search its Markdown
        // (readOffice converts within the Office module's own bounds), not its zip bytes.
        const office = await readOffice({ ...at, segments: child }, e.name, kind.format, L.MAX_SEARCH_FILE_BYTES).catch(() => undefined);
        if (office?.kind !== 'text') continue;
        budget.bytes += Buffer.byteLength(office.text);
        if (!onText(child.join('/'), office.text)) {
          budget.exhausted = true;
          return;
        }
        continue;
      }
      budget.bytes += read.bytes.length;
      // Only text is walked: what the other kinds say to the agent (a PDF's pages, an image's OCR, a transcript)
      // is in the search index once a turn or a chip has read it.
      if (kind.kind !== 'text') continue;
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
export async function search(scope: McpScope<App>, id: unknown, query: string, maxResults = L.MAX_SEARCH_RESULTS) {
  const { app, profile } = scope;
  const s = await findSession(scope, id);
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
    const guard = await scope.workspaceGuard();
    const at = workspace ? await openWorkspacePath(workspace, '', false, guard).catch(() => undefined) : undefined;
    // Under MCP Roots the walk runs only in a workspace wholly within a root (a narrower walk would be a second
    // walker): fewer hits, never a file outside the roots.
    if (at && !(await scope.withinRoots(placeOf(at)))) await at.root.close();
    else if (at) {
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

/** One hit of a search across conversations: which conversation, where in it, its snippet. */
export interface CrossSearchHit {
  session_id: string;
  title: string;
  where: 'title' | 'message' | 'attachment';
  /** The message's index, the attachment's stored name; '' for a title. */
  ref: string;
  uri: string;
  snippet: string;
}

/**
 * Search every conversation this key may read (issue 39), through the index only (titles, messages, the text the
 * agent got from attachments: store/search.ts, ranked by bm25, its deadline and bounds), best first. No file is
 * walked: a walk of every workspace is unbounded in a way the index is not. A key with chosen grants searches
 * among its conversations in SQL (applied while the index is walked: store/db/search.ts grantedWalk), so others
 * never take its places in the ranking.
 */
export async function searchAll(scope: McpScope<App>, query: string, maxResults = L.MAX_SEARCH_RESULTS) {
  if (!query.trim()) throw new McpDataError('The query is empty');
  const { app, profile } = scope;
  const grants = scope.grants();
  const allowed = await scope.predicate();
  const everything = grants === 'all' || grants.some((g) => g.kind === 'all');
  const sessionIds = everything ? undefined : await scope.sessionIds();
  const found =
    sessionIds?.length === 0
      ? { hits: [], complete: true, stopped: undefined }
      : await app.sessions.search(profile, query, maxResults, { kinds: ['title', 'message', 'attachment_text'], ...(sessionIds ? { sessionIds } : {}) });
  const hits: CrossSearchHit[] = [];
  // The SQL scope is the profile's (or the granted ids); kept-out conversations and any grant changed meanwhile
  // are dropped here by the same test every read makes.
  for (const hit of found.hits) {
    const s = hit.listing;
    if (!allowed(s)) continue;
    const snippet = hit.snippet.map((part) => part.text).join('');
    const title = typeof s.title === 'string' ? s.title : '';
    if (hit.kind === 'title') hits.push({ session_id: s.session_id, title, where: 'title', ref: '', uri: sessionUri(s.session_id), snippet });
    else if (hit.kind === 'message') hits.push({ session_id: s.session_id, title, where: 'message', ref: String(hit.position), uri: sessionUri(s.session_id), snippet });
    else if (hit.attachment !== undefined) hits.push({ session_id: s.session_id, title, where: 'attachment', ref: hit.attachment, uri: attachmentUri(s.session_id, hit.attachment), snippet });
  }
  return {
    query: redactText(query),
    results: hits.map(publicCrossSearchHit),
    complete: found.complete,
    ...(found.stopped !== undefined ? { note: redactText(found.stopped) } : {}),
  };
}
