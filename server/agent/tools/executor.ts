// Satchel's tools, run inside a turn (loop.ts): one function per tool, read-only, confined to the conversation's
// documents (the attachments of its shown rows and of the new turn) and its workspace. Whatever the agent sends
// (an unknown tool, broken JSON, a path out, a huge range) is answered in one sentence as the tool's result:
// nothing here throws to the turn. Every result is redacted as MCP's are (projections redactText) and bounded
// (limits.ts); no local path is ever in one.
import path from 'node:path';
import type { DocTexts } from '../../context/doc-text.js';
import { workspaceUri } from '../../context/documents.js';
import { passageLabel, passagesOf } from '../../context/passages.js';
import { rankPassages } from '../../context/rank.js';
import type { ConversationDoc, Passage } from '../../context/types.js';
import type { InputOptions } from '../../content/index.js';
import { redactText } from '../../projections/index.js';
import type { PlaceGuard } from '../../store/protected.js';
import { parseArgs, type Args } from './args.js';
import { MAX_QUERY_CHARS, MAX_SEARCH_PASSAGES, MAX_TOOL_RESULT_CHARS } from './limits.js';
import type { ToolResult, ToolRunner } from './loop.js';
import { parsePages, readText } from './pages.js';
import { LIST_FILES, READ_FILE, SATCHEL_TOOL_NAMES, SEARCH_DOCUMENTS } from './specs.js';
import { listWorkspaceFiles, Refused, resolveWorkspaceFile } from './workspace-files.js';

/** What a turn's tools may reach: its documents, its workspace (validated), and how documents are read. */
export interface ToolScope {
  sessionId: string;
  /** The conversation's documents, newest first (context/documents.ts conversationDocs over the rows and the new turn). */
  docs: ConversationDoc[];
  /** The workspace folder, validated (store/workspaces.ts); absent: the conversation has none usable. */
  workspace?: string;
  /** The protected places no workspace read reaches (store/protected.ts). */
  guard?: PlaceGuard;
  texts: DocTexts;
  /** Reading options of the turn (its roots: the session's attachment folder). */
  read: InputOptions;
}

/** Workspace files search_documents reads at most, listed first: a search answers in seconds, not minutes. */
export const MAX_SEARCHED_WORKSPACE_FILES = 40;
/** Characters of a name the agent sent that a refusal quotes. */
const QUOTED_NAME_CHARS = 120;
const URI = /^satchel:\/\/session\/([^/]+)\/(attachment|workspace)\/(.+)$/;

export const UNKNOWN_TOOL = (name: string) => `Unknown tool "${quote(name)}": Satchel's tools are ${SATCHEL_TOOL_NAMES.join(', ')}.`;
export const NAME_REQUIRED = 'Refused: read_file needs "name", a file\'s name as list_files gives it.';
export const QUERY_REQUIRED = 'Refused: search_documents needs "query", what to look for in words.';

function quote(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > QUOTED_NAME_CHARS ? `${line.slice(0, QUOTED_NAME_CHARS - 1)}…` : line;
}

export class ToolExecutor implements ToolRunner {
  private scope?: Promise<ToolScope>;

  constructor(private readonly makeScope: () => Promise<ToolScope>) {}

  async run(name: string, raw: string, signal: AbortSignal): Promise<ToolResult> {
    let text: string;
    let isError = false;
    let folders: string[] = [];
    try {
      this.scope ??= this.makeScope();
      const scope = await this.scope;
      folders = foldersOf(scope);
      const args = parseArgs(raw);
      if (!SATCHEL_TOOL_NAMES.includes(name)) throw new Refused(UNKNOWN_TOOL(name));
      if (typeof args === 'string') throw new Refused(args);
      text = await this.tool(name, args, { ...scope, read: { ...scope.read, signal } });
    } catch (err) {
      isError = true;
      // A refusal is the agent's to read; anything else is said without its message (it may hold a path).
      text = err instanceof Refused ? err.message : signal.aborted ? 'Stopped: the turn ended.' : `Satchel could not run ${quote(name)}; try another file or question.`;
    }
    return { text: String(redactText(scrubbed(text, folders))), isError };
  }

  private tool(name: string, args: Args, scope: ToolScope): Promise<string> {
    if (name === LIST_FILES) return listFiles(scope);
    if (name === READ_FILE) return readFile(scope, args);
    return searchDocuments(scope, args);
  }
}

/** The folders of this machine a result must not name: the workspace, the attachment folder, the state folder. */
function foldersOf(scope: ToolScope): string[] {
  return [...(scope.workspace ? [scope.workspace] : []), ...scope.read.roots, ...(scope.read.stateDir ? [scope.read.stateDir] : [])].filter((d) => d.length > 1);
}

/** No folder of this machine leaves in a result, whatever a reader put in its words (longest first: nested ones). */
function scrubbed(text: string, folders: readonly string[]): string {
  let out = text;
  for (const dir of [...folders].sort((a, b) => b.length - a.length)) out = out.split(dir).join('…');
  return out;
}

/** A workspace file as a document of the conversation (named by its path below the workspace, never above). */
export function workspaceDoc(scope: Pick<ToolScope, 'sessionId' | 'workspace'>, rel: string): ConversationDoc {
  const workspace = scope.workspace!;
  return {
    key: `workspace:${rel}`,
    name: rel,
    origin: 'workspace',
    attachment: { kind: 'file', filename: path.posix.basename(rel), path: path.join(workspace, ...rel.split('/')), size: 0, mime: '', is_image: false },
    uri: workspaceUri(scope.sessionId, rel),
  };
}

/** How a document is read: an attachment from the attachment folder, a workspace file from the workspace only. */
function readOptions(scope: ToolScope, doc: ConversationDoc): InputOptions {
  // Read-only: an Office file's Markdown is not left beside it in the person's folder.
  return doc.origin === 'workspace' ? { ...scope.read, roots: [scope.workspace!], readOnly: true } : scope.read;
}

async function listFiles(scope: ToolScope): Promise<string> {
  const lines: string[] = [];
  lines.push(scope.docs.length ? `Documents of this conversation (${scope.docs.length}):` : 'This conversation has no documents.');
  for (const d of scope.docs) lines.push(`- "${d.name}" (${d.origin === 'arrival' ? 'arrived' : 'attached'}) ${d.uri}`);
  if (!scope.workspace) {
    lines.push('', 'This conversation has no workspace folder.');
    return lines.join('\n');
  }
  const listed = await listWorkspaceFiles(scope.workspace, scope.guard);
  lines.push('', `Workspace "${path.basename(scope.workspace)}" (${listed.files.length}${listed.more ? '+' : ''} files; hidden files are not listed):`);
  for (const f of listed.files) lines.push(`- ${f.rel} (${f.size.toLocaleString('en-US')} bytes)`);
  if (listed.more) lines.push('[More files than listed: read_file takes any of them by its path below the workspace.]');
  return bounded(lines.join('\n'));
}

/** The document `name` names: an attachment by its name or URI, else a workspace file by its path or URI. */
async function findDoc(scope: ToolScope, name: string): Promise<ConversationDoc> {
  const uri = URI.exec(name);
  if (uri) {
    if (uri[1] !== scope.sessionId) throw new Refused('Refused: that satchel:// URI is of another conversation; these tools read only this one\'s files.');
    let inner: string;
    try {
      inner = decodeURIComponent(uri[3]!);
    } catch {
      throw new Refused(`No file named "${quote(name)}"; list_files names them.`);
    }
    if (uri[2] === 'workspace') return workspaceFile(scope, inner, name);
    const byUri = scope.docs.find((d) => d.uri === name || d.name === inner);
    if (!byUri) throw new Refused(`No document named "${quote(inner)}" in this conversation; list_files names them.`);
    return byUri;
  }
  const attached = scope.docs.find((d) => d.name === name);
  return attached ?? workspaceFile(scope, name, name);
}

async function workspaceFile(scope: ToolScope, rel: string, shown: string): Promise<ConversationDoc> {
  if (!scope.workspace) throw new Refused(`No document named "${quote(shown)}" in this conversation, and it has no workspace; list_files names its files.`);
  const real = await resolveWorkspaceFile(scope.workspace, rel.replace(/\\/g, '/'), scope.guard, quote(shown));
  return workspaceDoc(scope, real);
}

async function readFile(scope: ToolScope, args: Args): Promise<string> {
  const name = typeof args.name === 'string' ? args.name.trim() : '';
  if (!name) throw new Refused(NAME_REQUIRED);
  let pages: number[] | undefined;
  if (args.pages !== undefined && args.pages !== null && args.pages !== '') {
    const parsed = parsePages(args.pages);
    if (typeof parsed === 'string') throw new Refused(parsed);
    pages = parsed;
  }
  const doc = await findDoc(scope, name);
  const text = await scope.texts.get(doc, readOptions(scope, doc));
  if (text.summary.state === 'unreadable') throw new Refused(`"${doc.name}" could not be read: ${text.summary.text}.`);
  return readText(doc, text, pages);
}

async function searchDocuments(scope: ToolScope, args: Args): Promise<string> {
  const query = typeof args.query === 'string' ? args.query.trim().slice(0, MAX_QUERY_CHARS) : '';
  if (!query) throw new Refused(QUERY_REQUIRED);
  const docs = [...scope.docs];
  if (scope.workspace) {
    const listed = await listWorkspaceFiles(scope.workspace, scope.guard);
    for (const f of listed.files.slice(0, MAX_SEARCHED_WORKSPACE_FILES)) docs.push(workspaceDoc(scope, f.rel));
  }
  const passages: Passage[] = [];
  for (const doc of docs) {
    scope.read.signal?.throwIfAborted();
    const text = await scope.texts.get(doc, readOptions(scope, doc)).catch(() => undefined);
    if (text && text.summary.state !== 'unreadable') passages.push(...passagesOf(doc, text));
  }
  const best = rankPassages(passages, query, MAX_SEARCH_PASSAGES);
  if (best.length === 0) return `No passage of the conversation's ${docs.length} document${docs.length === 1 ? '' : 's'} matches "${quote(query)}".`;
  const out: string[] = [];
  let used = 0;
  for (const p of best) {
    const piece = `--- ${passageLabel(p)} ---\n${p.text}`;
    if (used + piece.length > MAX_TOOL_RESULT_CHARS) break;
    out.push(piece);
    used += piece.length + 2;
  }
  return `${out.length} passage${out.length === 1 ? '' : 's'} for "${quote(query)}", best first (read_file reads a whole page):\n\n${out.join('\n\n')}`;
}

function bounded(text: string): string {
  return text.length <= MAX_TOOL_RESULT_CHARS ? text : `${text.slice(0, MAX_TOOL_RESULT_CHARS)}\n[Cut at ${MAX_TOOL_RESULT_CHARS.toLocaleString('en-US')} characters.]`;
}
