// A conversation as Markdown (the `conversation.md` of a Markdown export): its title and times, then each row
// of the version shown with who wrote it and when, replies as the Markdown they are, attachments as relative
// links into the `attachments/` folder beside the file. Made from the export's projection (projections/export.ts),
// so every text in it has been through the redactor as on the page.
import type { ExportedConversation, ExportedMessage } from '../projections/export.js';

const ROLE_NAMES: Record<string, string> = { user: 'You', assistant: 'Assistant', tool: 'Tool result', system: 'System' };

/** What a row's or a conversation's time prints as when it is stored but cannot be written as a date. */
export const UNKNOWN_TIME = 'unknown time';
/** The first and last milliseconds of a four-digit year (0000-01-01, 9999-12-31): outside, `toISOString` writes `+010000-…` or throws. */
const FIRST_WRITABLE_MS = -62_167_219_200_000;
const LAST_WRITABLE_MS = 253_402_300_799_999;

/**
 * Epoch seconds as `2024-05-01 12:03 UTC`; minutes are what a reader of a conversation needs. Total over whatever
 * is stored (an export must never fail on a value): a number no date can be made of (1e300, a store of another
 * version, an import before times were checked) prints as UNKNOWN_TIME; undefined only for a row with no time.
 */
export function markdownTime(seconds: unknown): string | undefined {
  if (seconds === undefined || seconds === null) return undefined;
  const ms = typeof seconds === 'number' ? seconds * 1000 : NaN;
  if (!(ms >= FIRST_WRITABLE_MS && ms <= LAST_WRITABLE_MS)) return UNKNOWN_TIME;
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

function isoTime(iso: unknown): string {
  const ms = typeof iso === 'string' ? Date.parse(iso) : NaN;
  return Number.isFinite(ms) ? markdownTime(ms / 1000)! : typeof iso === 'string' ? iso : UNKNOWN_TIME;
}

/** A relative link target: each segment percent-encoded, so spaces and brackets in a name keep the link whole. */
export function linkTarget(relative: unknown): string {
  return String(relative ?? '').split('/').map(encodeURIComponent).join('/');
}

/** Text for inside `[...]`: the characters that would end or nest the link, escaped. */
export function linkText(text: unknown): string {
  return String(text ?? '').replace(/[\\[\]`*_<>]/g, (c) => `\\${c}`).replace(/[\r\n]+/g, ' ');
}

function attachmentLines(m: ExportedMessage): string[] {
  const lines: string[] = [];
  for (const a of m.attachments ?? []) {
    if (a.kind === 'extraction') {
      const count = a.file_count === undefined ? '' : `, ${a.file_count} file${a.file_count === 1 ? '' : 's'}`;
      lines.push(`- [${linkText(a.name)}/](${linkTarget(a.path)}/) (extracted archive${count})`);
    } else {
      lines.push(`- [${linkText(a.display_name ?? a.filename)}](${linkTarget(a.path)})`);
    }
  }
  return lines.length > 0 ? ['**Attachments:**', '', ...lines] : [];
}

function versionNote(m: ExportedMessage): string | undefined {
  const fork = m._versions;
  if (!fork) return undefined;
  const count = fork.before.length + fork.after.length + 1;
  return `_Version ${fork.before.length + 1} of ${count}; the JSON export keeps them all._`;
}

/** One row's block of the Markdown file (what sits between two MARKDOWN_SEPARATORs). */
export function messageBlock(m: ExportedMessage): string {
  const when = markdownTime(m.timestamp);
  // An Inbox arrival row is Satchel's note of files, not a system prompt: headed by where it happened.
  const who = m.role === 'system' && m.arrival ? 'Inbox' : (ROLE_NAMES[m.role] ?? m.role);
  // Which agent and model wrote a reply (issue 38, item 6), as the thread's header says it.
  const by = m.answered_by ? [m.answered_by.agent, m.answered_by.model].filter((v) => typeof v === 'string' && v !== '').join(' · ') : '';
  const head = `### ${who}${by ? ` (${linkText(by)})` : ''}${when ? ` · ${when}` : ''}`;
  const parts = [head];
  const note = versionNote(m);
  if (note) parts.push(note);
  if (m.content.trim() !== '') parts.push(m.content.trimEnd());
  const files = attachmentLines(m);
  if (files.length > 0) parts.push(files.join('\n'));
  return parts.join('\n\n');
}

/** What stands between the head and each row's block. */
export const MARKDOWN_SEPARATOR = '\n\n---\n\n';

/** The file's head: the title and the conversation's times (its `messages` are not read). */
export function markdownHead(doc: Omit<ExportedConversation, 'messages'>): string {
  return [
    `# ${doc.title.replace(/[\r\n]+/g, ' ')}`,
    `Started ${isoTime(doc.created_at)} · last activity ${isoTime(doc.updated_at)} · exported from Satchel ${doc.app_version}`,
  ].join('\n\n');
}

/** The whole Markdown file (an export of every conversation writes the same bytes a row at a time: conversation-parts.ts). */
export function conversationMarkdown(doc: ExportedConversation): string {
  return [markdownHead(doc), ...doc.messages.map(messageBlock)].join(MARKDOWN_SEPARATOR) + '\n';
}
