// One conversation's export members (its conversation.json and conversation.md) written a row at a time, with the
// same bytes as the whole document made at once (`JSON.stringify(doc, null, 2)`, markdown.ts `conversationMarkdown`;
// the head is written whole with a random placeholder where the rows go, each row stringified alone and indented to
// its depth: a JSON string holds no raw newline, so every newline of a row's JSON is the layout's),
// so an "Export all" archive never holds a conversation's whole JSON, nor more of its Markdown than
// MARKDOWN_KEPT_BYTES, in memory, and reads back
// (read-export.ts) exactly as an export made whole did. Each row is projected (redacted, paths made relative) only
// when its turn comes.
import { randomBytes } from 'node:crypto';
import type * as wire from '../core/wire.js';
import { exportedMessage, type ExportedConversation, type ExportFolder } from '../projections/export.js';
import { markdownHead, MARKDOWN_SEPARATOR, messageBlock } from './markdown.js';

/** The indentation of a row in the JSON (`JSON.stringify(doc, null, 2)`: the document's keys at 2, `messages`' items at 4). */
const ROW_INDENT = '    ';

/**
 * Bytes of Markdown the JSON's pass keeps for the Markdown member: a conversation of up to ~16,000 messages of a
 * realistic history (the yardstick's longest, 10,000, keep theirs: a second pass redacts every row again, and the
 * peak RSS at 200k was the same with a 4 MiB bound, docs/benchmarks.md). A longer
 * one's Markdown is made by a second pass over its rows instead (read again in pages, projected again), so what
 * an export holds does not grow with a conversation's length.
 */
export const MARKDOWN_KEPT_BYTES = 16 * 1024 * 1024;
/** The kept Markdown is written into Buffers of this size: its bytes as the archive takes them, outside V8's heap. */
const KEPT_CHUNK_BYTES = 64 * 1024;

/**
 * A conversation's two members: the JSON (written first) projects each row once (redacting is most of an
 * export's work) and keeps its Markdown block, as UTF-8 bytes, for the Markdown member, up to MARKDOWN_KEPT_BYTES
 * (beyond, the Markdown reads the rows again). Rows come as the caller reads them (read-conversation.ts: pages).
 */
export interface ConversationParts {
  json(): AsyncGenerator<string>;
  /** Strings, and the kept Markdown's bytes as Buffers. */
  markdown(): AsyncGenerator<string | Buffer>;
}

type Rows = () => AsyncIterable<wire.Message> | Iterable<wire.Message>;

/** Markdown blocks as UTF-8 bytes in KEPT_CHUNK_BYTES Buffers, until there would be more than MARKDOWN_KEPT_BYTES. */
class KeptMarkdown {
  private chunks: Buffer[] = [];
  private current = Buffer.allocUnsafe(KEPT_CHUNK_BYTES);
  private used = 0;
  private total = 0;
  full = false;

  add(text: string): void {
    if (this.full) return;
    const bytes = Buffer.byteLength(text, 'utf8');
    this.total += bytes;
    if (this.total > MARKDOWN_KEPT_BYTES) {
      // Too long to keep: let everything go, the Markdown is read again.
      this.full = true;
      this.chunks = [];
      this.current = Buffer.alloc(0);
      return;
    }
    if (bytes > this.current.length - this.used) {
      if (this.used > 0) this.chunks.push(this.current.subarray(0, this.used));
      this.current = Buffer.allocUnsafe(Math.max(KEPT_CHUNK_BYTES, bytes));
      this.used = 0;
    }
    this.used += this.current.write(text, this.used, 'utf8');
  }

  /** The bytes kept, in order; undefined when there were too many. */
  take(): (Buffer | undefined)[] | undefined {
    if (this.full) return undefined;
    if (this.used > 0) this.chunks.push(this.current.subarray(0, this.used));
    return this.chunks;
  }
}

export function conversationParts(head: ExportedConversation, rows: Rows, where: ExportFolder): ConversationParts {
  let blocks: KeptMarkdown | undefined;
  return {
    async *json() {
      const kept = new KeptMarkdown();
      const placeholder = `satchel-export-rows-${randomBytes(16).toString('hex')}`;
      const text = JSON.stringify({ ...head, messages: placeholder }, null, 2);
      const quoted = JSON.stringify(placeholder);
      const at = text.indexOf(quoted);
      yield text.slice(0, at);
      let first = true;
      for await (const row of rows()) {
        const projected = exportedMessage(row, where);
        kept.add(MARKDOWN_SEPARATOR + messageBlock(projected));
        const json = JSON.stringify(projected, null, 2).replaceAll('\n', `\n${ROW_INDENT}`);
        yield `${first ? '[\n' : ',\n'}${ROW_INDENT}${json}`;
        first = false;
      }
      yield first ? '[]' : '\n  ]';
      yield text.slice(at + quoted.length);
      blocks = kept;
    },
    async *markdown() {
      yield markdownHead(head);
      const list = blocks?.take();
      blocks = undefined;
      if (list) {
        for (let i = 0; i < list.length; i++) {
          yield list[i]!;
          list[i] = undefined;
        }
      } else {
        for await (const row of rows()) yield MARKDOWN_SEPARATOR + messageBlock(exportedMessage(row, where));
      }
      yield '\n';
    },
  };
}

/** The JSON member's parts alone: `JSON.stringify({ ...head, messages: rows projected }, null, 2)`, in order. */
export function conversationJsonParts(head: ExportedConversation, rows: readonly wire.Message[], where: ExportFolder): AsyncGenerator<string> {
  return conversationParts(head, () => rows, where).json();
}

/** The Markdown member's parts alone: markdown.ts `conversationMarkdown` of the same document, in order. */
export function conversationMarkdownParts(head: ExportedConversation, rows: readonly wire.Message[], where: ExportFolder): AsyncGenerator<string | Buffer> {
  return conversationParts(head, () => rows, where).markdown();
}
