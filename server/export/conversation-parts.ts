// One conversation's export members (its conversation.json and conversation.md) written a row at a time, with the
// same bytes as the whole document made at once (`JSON.stringify(doc, null, 2)`, markdown.ts `conversationMarkdown`),
// so an "Export all" archive never holds a conversation's whole JSON or Markdown in memory, and reads back
// (read-export.ts) exactly as an export made whole did. Each row is projected (redacted, paths made relative) only
// when its turn comes.
import { randomBytes } from 'node:crypto';
import type * as wire from '../core/wire.js';
import { exportedMessage, type ExportedConversation, type ExportedMessage, type ExportFolder } from '../projections/export.js';
import { markdownHead, MARKDOWN_SEPARATOR, messageBlock } from './markdown.js';

/** The indentation of a row in the JSON (`JSON.stringify(doc, null, 2)`: the document's keys at 2, `messages`' items at 4). */
const ROW_INDENT = '    ';

/**
 * A conversation's two members made from one projection of each row: the JSON (written first) projects a row and
 * keeps it for the Markdown, which lets it go once written. Redacting is most of an export's work, so each row is
 * redacted once, not once per member; what is kept between the two is one conversation's projected rows.
 */
export interface ConversationParts {
  json(): Generator<string>;
  markdown(): Generator<string>;
}

export function conversationParts(head: ExportedConversation, rows: readonly wire.Message[], where: ExportFolder): ConversationParts {
  const projected: (ExportedMessage | undefined)[] = new Array<ExportedMessage | undefined>(rows.length);
  const project = (i: number): ExportedMessage => (projected[i] ??= exportedMessage(rows[i]!, where));
  return {
    json: () => jsonParts(head, rows.length, project),
    *markdown() {
      yield markdownHead(head);
      for (let i = 0; i < rows.length; i++) {
        const row = project(i);
        projected[i] = undefined;
        yield MARKDOWN_SEPARATOR + messageBlock(row);
      }
      yield '\n';
    },
  };
}

/**
 * The parts of `JSON.stringify({ ...head, messages: rows projected }, null, 2)`, in order. The head is written
 * whole with a placeholder string where the rows go, unique per call (random), so no text of the conversation can
 * be taken for it; each row is stringified alone and indented to its depth (a JSON string holds no raw newline,
 * so every newline of a row's text is one of the layout's).
 */
function* jsonParts(head: ExportedConversation, count: number, row: (i: number) => ExportedMessage): Generator<string> {
  const placeholder = `satchel-export-rows-${randomBytes(16).toString('hex')}`;
  const text = JSON.stringify({ ...head, messages: placeholder }, null, 2);
  const quoted = JSON.stringify(placeholder);
  const at = text.indexOf(quoted);
  yield text.slice(0, at);
  if (count === 0) {
    yield '[]';
  } else {
    yield '[\n';
    for (let i = 0; i < count; i++) {
      const json = JSON.stringify(row(i), null, 2).replaceAll('\n', `\n${ROW_INDENT}`);
      yield `${i > 0 ? ',\n' : ''}${ROW_INDENT}${json}`;
    }
    yield '\n  ]';
  }
  yield text.slice(at + quoted.length);
}

/** The JSON member's parts alone (each row projected as it is written). */
export function conversationJsonParts(head: ExportedConversation, rows: readonly wire.Message[], where: ExportFolder): Generator<string> {
  return conversationParts(head, rows, where).json();
}

/** The Markdown member's parts alone: markdown.ts `conversationMarkdown` of the same document, in order. */
export function conversationMarkdownParts(head: ExportedConversation, rows: readonly wire.Message[], where: ExportFolder): Generator<string> {
  return conversationParts(head, rows, where).markdown();
}
