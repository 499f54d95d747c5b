// One conversation's export members (its conversation.json and conversation.md) written a row at a time, with the
// same bytes as the whole document made at once (`JSON.stringify(doc, null, 2)`, markdown.ts `conversationMarkdown`;
// the head is written whole with a random placeholder where the rows go, each row stringified alone and indented to
// its depth: a JSON string holds no raw newline, so every newline of a row's JSON is the layout's),
// so an "Export all" archive never holds a conversation's whole JSON or Markdown in memory, and reads back
// (read-export.ts) exactly as an export made whole did. Each row is projected (redacted, paths made relative) only
// when its turn comes.
import { randomBytes } from 'node:crypto';
import type * as wire from '../core/wire.js';
import { exportedMessage, type ExportedConversation, type ExportFolder } from '../projections/export.js';
import { markdownHead, MARKDOWN_SEPARATOR, messageBlock } from './markdown.js';

/** The indentation of a row in the JSON (`JSON.stringify(doc, null, 2)`: the document's keys at 2, `messages`' items at 4). */
const ROW_INDENT = '    ';

/**
 * A conversation's two members from one pass over its rows: the JSON (written first) projects each row once
 * (redacting is most of an export's work) and keeps only its Markdown block, a string, for the Markdown member,
 * which lets each go once written. Rows come as the caller reads them (read-conversation.ts: pages).
 */
export interface ConversationParts {
  json(): AsyncGenerator<string>;
  markdown(): AsyncGenerator<string>;
}

type Rows = () => AsyncIterable<wire.Message> | Iterable<wire.Message>;

export function conversationParts(head: ExportedConversation, rows: Rows, where: ExportFolder): ConversationParts {
  let blocks: (string | undefined)[] | undefined;
  return {
    async *json() {
      const kept: string[] = [];
      const placeholder = `satchel-export-rows-${randomBytes(16).toString('hex')}`;
      const text = JSON.stringify({ ...head, messages: placeholder }, null, 2);
      const quoted = JSON.stringify(placeholder);
      const at = text.indexOf(quoted);
      yield text.slice(0, at);
      let first = true;
      for await (const row of rows()) {
        const projected = exportedMessage(row, where);
        kept.push(messageBlock(projected));
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
      if (blocks) {
        const list = blocks;
        blocks = undefined;
        for (let i = 0; i < list.length; i++) {
          yield MARKDOWN_SEPARATOR + list[i]!;
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
export function conversationMarkdownParts(head: ExportedConversation, rows: readonly wire.Message[], where: ExportFolder): AsyncGenerator<string> {
  return conversationParts(head, () => rows, where).markdown();
}
