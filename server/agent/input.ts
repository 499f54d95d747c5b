// What a turn sends the agent (agent.md, "Attachments as model input"): the user's text and its attachments
// as Chat Completions content parts, and for plain OpenAI servers the session's history before it. Only `text`
// and `image_url` parts exist here (Hermes' gateway accepts nothing else). Inlined text — files, Office
// Markdown, archive members, transcripts, then the history — shares one budget per turn; what does not fit
// is cut with a visible marker, never silently.
//
// Attachment objects come from the browser, so their paths are not trusted: a file is read only when it lies
// under one of the caller's roots (the session's attachment folder), through a descriptor-anchored walk that
// follows no symlink out of the root, with its size known before anything is read.
import fs from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { officeFormat } from '../office/index.js';
import { isInside } from '../core/paths.js';
import { loadSttConfig, transcribeFile } from '../speech/index.js';
import { AnchoredDir } from '../store/anchored.js';
import { locateInside, MAX_ENTRIES_WALKED, MAX_WALK_DEPTH, openInside, walkFiles, type FilesBelow } from '../store/anchored-walk.js';
import { decodeFileText, imageMime, looksLikeText, SNIFF_BYTES } from '../workspace/file-kind.js';
import { encodingLabel } from '../workspace/text-encoding.js';
import type { ChatAttachment } from '../core/wire.js';
import { officeMarkdownIn } from './office-markdown.js';
import type { AgentConfig, ChatMessage, ContentPart } from './types.js';

/** The largest image sent inline (agent.md). */
export const MAX_IMAGE_BYTES = 20 * 1024 * 1024;
/** Archive members listed per archive (the rest are counted). */
export const MAX_ARCHIVE_LISTED = 200;
/** An archive member is inlined only up to this size: the list matters more than one big member. */
export const MAX_ARCHIVE_MEMBER_BYTES = 64 * 1024;
const AUDIO_EXTENSIONS = new Set(['.webm', '.ogg', '.wav', '.mp3', '.m4a']);
const O_RDONLY = fs.constants.O_RDONLY;

/** A row of the session's `messages` as stored (agent.md, "What is stored"); only these fields are read. */
export interface StoredMessage {
  role: string;
  content?: unknown;
  attachments?: unknown;
  _error?: boolean;
}

export interface InputOptions {
  /** Folders attachments may be read from (the session's attachment folder). Anything else is only named. */
  roots: readonly string[];
  /** For audio transcripts through the configured speech-to-text. */
  stateDir?: string;
  /** Replaces speech-to-text (tests; a caller that has its own). Resolves the transcript, rejects on failure. */
  transcribe?: (file: string, filename: string) => Promise<string>;
  signal?: AbortSignal;
  /** The conversation's system prompt: the first message of the turn, drawn from the budget before anything else. */
  systemPrompt?: string;
  /**
   * Told the whole text an attachment gave (an Office document's Markdown, an audio file's transcript), before
   * the budget cuts it, with the attachment's path as the turn named it: the search index takes it (app.ts).
   */
  onAttachmentText?: (attachmentPath: string, text: string) => void;
}

/** One turn's share of characters; `take` cuts what does not fit and says so. */
export class Budget {
  constructor(public left: number) {}

  take(text: string, name: string): string {
    if (text.length <= this.left) {
      this.left -= text.length;
      return text;
    }
    const kept = text.slice(0, Math.max(0, this.left));
    this.left = 0;
    return `${kept}${kept ? '\n' : ''}${truncationMarker(text.length - kept.length, name)}`;
  }
}

export function truncationMarker(more: number, name: string): string {
  return `[… truncated: ${more} more characters of ${name}]`;
}

interface Opened {
  handle: FileHandle;
  size: number;
  /** The file's folder, still held open, when asked for (openUnder's holdDir): closed by closeOpened. */
  dir?: AnchoredDir;
  /** The file's name in that folder. */
  name: string;
}

async function closeOpened(opened: Opened): Promise<void> {
  await opened.handle.close();
  await opened.dir?.close();
}

/**
 * `use` on the first of `roots` that `target` lies strictly below: that root held open as an anchor, and the
 * path's segments below it (lexical; the anchored walk resolves any symlink on the way, refusing one that
 * leaves). Undefined when `target` lies under no root, or `use` fails: an attachment is then only named.
 */
async function underRoot<T>(roots: readonly string[], target: string, use: (anchor: AnchoredDir, segments: string[]) => Promise<T | undefined>): Promise<T | undefined> {
  const resolved = path.resolve(target);
  for (const root of roots) {
    const resolvedRoot = path.resolve(root);
    if (!isInside(resolvedRoot, resolved) || resolved === resolvedRoot) continue;
    let anchor: AnchoredDir | undefined;
    try {
      anchor = await AnchoredDir.open(resolvedRoot);
      return await use(anchor, path.relative(resolvedRoot, resolved).split(path.sep).filter(Boolean));
    } catch {
      return undefined;
    } finally {
      await anchor?.close();
    }
  }
  return undefined;
}

/**
 * The regular file at `file`, opened read-only through its root without following a symlink out of it. With
 * `holdDir`, the folder it was opened in stays open too, for work beside the file (an Office sidecar) that must
 * happen in that very folder rather than wherever its path leads by then.
 */
function openUnder(roots: readonly string[], file: string, holdDir = false): Promise<Opened | undefined> {
  return underRoot(roots, file, async (anchor, segments) => {
    const found = await locateInside(anchor, segments);
    let held = false;
    try {
      if (!found.stat.isFile()) return undefined;
      const handle = await found.parent.openFile(found.name, O_RDONLY);
      const stat = await handle.stat();
      if (!stat.isFile()) {
        await handle.close();
        return undefined;
      }
      held = holdDir;
      return { handle, size: stat.size, name: found.name, ...(holdDir ? { dir: found.parent } : {}) };
    } finally {
      if (!held) await found.parent.close();
    }
  });
}

async function readAt(handle: FileHandle, bytes: number): Promise<Buffer> {
  const buf = Buffer.alloc(bytes);
  let got = 0;
  while (got < bytes) {
    const { bytesRead } = await handle.read(buf, got, bytes - got, got);
    if (bytesRead === 0) break;
    got += bytesRead;
  }
  return buf.subarray(0, got);
}

/**
 * Reads enough of a text file to fill `budget` characters; the rest is counted, never held. Headed with its
 * name, and its encoding when that is not UTF-8: the agent then knows the bytes on disk are not what it reads.
 */
async function readTextFor(opened: Opened, budget: Budget, name: string): Promise<string> {
  // UTF-8 and UTF-16 need at most 4 bytes a character (single-byte encodings 1): this many bytes hold more than
  // `left` characters, or the file (and a byte order mark).
  const want = Math.min(opened.size, budget.left * 4 + 4);
  const { encoding, text } = decodeFileText(await readAt(opened.handle, want));
  const label = encodingLabel(encoding);
  const head = header(name, 'file', label ? `text, ${label}` : undefined);
  const unread = opened.size - want;
  if (unread <= 0) return head + budget.take(text, name);
  const kept = text.slice(0, budget.left);
  budget.left = 0;
  // Each unread byte counts as a character: exact for ASCII, an upper bound otherwise.
  return `${head}${kept}${kept ? '\n' : ''}${truncationMarker(text.length - kept.length + unread, name)}`;
}

function describe(name: string, mime: string, size: number | undefined, where: string, note = ''): string {
  const sizeText = size === undefined ? 'size unknown' : `${size} bytes`;
  return `[Attached file "${name}" (${mime || 'unknown type'}, ${sizeText}), stored at ${where}${note ? `; ${note}` : ''}]`;
}

function header(name: string, what = 'file', detail?: string): string {
  return `Attached ${what} "${name}"${detail ? ` (${detail})` : ''}:\n`;
}

function isAudio(name: string, mime: string): boolean {
  return mime.startsWith('audio/') || AUDIO_EXTENSIONS.has(path.extname(name).toLowerCase());
}

function attachmentName(a: ChatAttachment): string {
  return ('filename' in a && a.filename) || ('name' in a && (a as { name?: string }).name) || path.basename(a.path);
}

async function defaultTranscribe(stateDir: string, file: string, filename: string, signal?: AbortSignal): Promise<string> {
  const result = await transcribeFile(loadSttConfig(stateDir), file, { filename, ...(signal ? { signal } : {}) });
  if (!result.success) throw new Error(result.error ?? 'transcription failed');
  return result.transcript ?? '';
}

async function fileParts(a: ChatAttachment & { filename?: string; mime?: string; size?: number }, budget: Budget, opts: InputOptions): Promise<ContentPart[]> {
  const name = attachmentName(a);
  const mime = typeof a.mime === 'string' ? a.mime : '';
  const text = (t: string): ContentPart[] => [{ type: 'text', text: t }];
  const office = officeFormat(name) !== null || officeFormat(a.path) !== null;
  // An Office file's sidecar is read and written beside it, in the folder this walk opens (office-markdown.ts).
  const opened = await openUnder(opts.roots, a.path, office);
  if (!opened) return text(describe(name, mime, a.size, a.path, 'not readable from the attachment folder'));
  try {
    const head = await readAt(opened.handle, Math.min(opened.size, SNIFF_BYTES));
    const image = imageMime(head);
    if (image && (mime.startsWith('image/') || (a as { is_image?: boolean }).is_image)) {
      if (opened.size > MAX_IMAGE_BYTES) return text(describe(name, mime, opened.size, a.path, `over the ${MAX_IMAGE_BYTES / (1024 * 1024)} MiB image limit`));
      const bytes = await readAt(opened.handle, opened.size);
      return [{ type: 'text', text: `Attached image "${name}":` }, { type: 'image_url', image_url: { url: `data:${image};base64,${bytes.toString('base64')}` } }];
    }
    if (office) {
      try {
        const format = officeFormat(a.path);
        if (!format || !opened.dir) throw new Error('not an Office file by its stored name');
        const markdown = await officeMarkdownIn(opened.dir, opened.name, opened.handle, format);
        opts.onAttachmentText?.(a.path, markdown);
        return text(header(name, 'document') + budget.take(markdown, name));
      } catch {
        return text(describe(name, mime, opened.size, a.path, 'its text could not be extracted'));
      }
    }
    if (isAudio(name, mime)) {
      try {
        const transcript = opts.transcribe
          ? await opts.transcribe(a.path, name)
          : opts.stateDir
            ? await defaultTranscribe(opts.stateDir, a.path, name, opts.signal)
            : undefined;
        if (transcript !== undefined) opts.onAttachmentText?.(a.path, transcript);
        if (transcript !== undefined) return text(header(name, 'audio, transcript of') + budget.take(transcript, name));
      } catch (err) {
        if (opts.signal?.aborted) throw err;
        return text(describe(name, mime, opened.size, a.path, 'it could not be transcribed'));
      }
    }
    if (looksLikeText(head)) return text(await readTextFor(opened, budget, name));
    return text(describe(name, mime, opened.size, a.path));
  } finally {
    await closeOpened(opened);
  }
}

/** The files below the extraction folder `folder`, listed by the one anchored walker (as the chip and MCP list
 *  them) from the root it lies under; undefined when it lies under none or cannot be opened. */
function filesUnder(roots: readonly string[], folder: string): Promise<FilesBelow | undefined> {
  return underRoot(roots, folder, async (anchor, segments) => {
    const dir = await openInside(anchor, segments);
    try {
      return await walkFiles(dir, MAX_ARCHIVE_LISTED, path.relative(anchor.path, dir.path).split(path.sep).filter(Boolean));
    } finally {
      await dir.close();
    }
  });
}

/** The members of an extracted archive, listed, with small text members inlined (budget permitting). */
async function archiveParts(a: { name?: string; path: string }, budget: Budget, opts: InputOptions): Promise<ContentPart[]> {
  const name = a.name || path.basename(a.path);
  const root = path.resolve(a.path);
  const listing = await filesUnder(opts.roots, root);
  if (!listing) return [{ type: 'text', text: `[Extracted archive "${name}" at ${a.path}; not readable from the attachment folder]` }];
  const { files, total, complete } = listing;
  const more = total - files.length;
  const lines = [`Extracted archive "${name}" (${total} files, at ${a.path}):`, ...files.map((f) => `- ${f.path} (${f.size} bytes)`)];
  if (more) lines.push(`- … and ${more} more files`);
  if (!complete) lines.push(`- … and more not counted (the list stops after ${MAX_ENTRIES_WALKED} entries or ${MAX_WALK_DEPTH} folders deep)`);
  const parts: ContentPart[] = [{ type: 'text', text: budget.take(lines.join('\n'), `the list of ${name}`) }];
  for (const f of files) {
    if (budget.left <= 0 || f.size > MAX_ARCHIVE_MEMBER_BYTES) continue;
    const opened = await openUnder(opts.roots, path.join(root, ...f.path.split('/')));
    if (!opened) continue;
    try {
      const head = await readAt(opened.handle, Math.min(opened.size, SNIFF_BYTES));
      if (!looksLikeText(head)) continue;
      const memberName = `${name}/${f.path}`;
      parts.push({ type: 'text', text: header(memberName) + (await readTextFor(opened, budget, memberName)) });
    } finally {
      await opened.handle.close();
    }
  }
  return parts;
}

/**
 * The new user turn's `content`: the text alone when nothing is attached, else a list of parts (the text
 * first, then each attachment's parts in order). Draws inlined text from `budget`.
 */
export async function buildUserContent(
  text: string,
  attachments: readonly ChatAttachment[],
  budget: Budget,
  opts: InputOptions,
): Promise<string | ContentPart[]> {
  budget.left = Math.max(0, budget.left - text.length);
  if (attachments.length === 0) return text;
  const parts: ContentPart[] = text ? [{ type: 'text', text }] : [];
  for (const a of attachments) {
    opts.signal?.throwIfAborted();
    if (!a || typeof a.path !== 'string') continue;
    if ('extracted' in a && a.extracted) parts.push(...(await archiveParts(a, budget, opts)));
    else parts.push(...(await fileParts(a, budget, opts)));
  }
  return parts;
}

function storedText(row: StoredMessage): string {
  const content = typeof row.content === 'string' ? row.content : Array.isArray(row.content) ? row.content.map((p) => (p as { text?: string })?.text ?? '').join('\n') : '';
  if (row.role !== 'user' || !Array.isArray(row.attachments) || row.attachments.length === 0) return content;
  // Earlier attachments are named, not re-read: the agent saw them in their turn.
  const named = row.attachments.map((a) => {
    const att = a as { filename?: string; name?: string; path?: string };
    return `[attached earlier: "${att.filename ?? att.name ?? path.basename(att.path ?? '')}" at ${att.path ?? '?'}]`;
  });
  return [content, ...named].filter(Boolean).join('\n');
}

/** The stored history as Chat Completions messages, newest kept first within `budget`, oldest dropped. */
export function historyMessages(history: readonly StoredMessage[], budget: Budget): ChatMessage[] {
  const kept: ChatMessage[] = [];
  for (let i = history.length - 1; i >= 0; i--) {
    const row = history[i]!;
    // Error banners are Satchel's words, and tool rows need the assistant's tool_calls beside them: not sent.
    if (row._error || (row.role !== 'user' && row.role !== 'assistant' && row.role !== 'system')) continue;
    const content = storedText(row);
    if (!content) continue;
    if (content.length > budget.left) break;
    budget.left -= content.length;
    kept.push({ role: row.role as ChatMessage['role'], content });
  }
  kept.reverse();
  // Chat templates expect the conversation to open with the person, not with a reply cut from its question.
  while (kept.length > 0 && kept[0]!.role === 'assistant') kept.shift();
  return kept;
}

/**
 * Everything a turn sends: the conversation's system prompt when it has one, the history trimmed to what the
 * budget leaves, then the new turn; or the system prompt and the new user turn alone when `historyKept`
 * (Hermes' gateway holds exactly this history under the session header: hermes-continuity.ts decides; it never
 * stores a system message, so the prompt goes with every turn).
 */
export async function buildTurnMessages(
  history: readonly StoredMessage[],
  text: string,
  attachments: readonly ChatAttachment[],
  config: AgentConfig,
  opts: InputOptions,
  historyKept = false,
): Promise<ChatMessage[]> {
  const budget = new Budget(config.contextChars);
  // The person wrote it for every turn: sent whole (it is bounded when stored), and what it takes is taken first.
  const system: ChatMessage[] = opts.systemPrompt ? [{ role: 'system', content: opts.systemPrompt }] : [];
  budget.left = Math.max(0, budget.left - (opts.systemPrompt?.length ?? 0));
  const user: ChatMessage = { role: 'user', content: await buildUserContent(text, attachments, budget, opts) };
  if (historyKept) return [...system, user];
  return [...system, ...historyMessages(history, budget), user];
}
