// An "Export all" member written a row at a time has exactly the bytes of the document made whole (what every
// export before it wrote, and what read-export.ts reads): stored rows of every shape (versions, attachments made
// relative, a secret the redactor masks, text that looks like JSON or like the layout), an empty conversation, a draft.
import { describe, expect, it } from 'vitest';
import type * as wire from '../core/wire.js';
import { exportedConversation, type ExportSource } from '../projections/export.js';
import { conversationJsonParts, conversationMarkdownParts, conversationParts, MARKDOWN_KEPT_BYTES } from './conversation-parts.js';
import { conversationMarkdown } from './markdown.js';

const folder = '/state/attachments/abc123abc123';
const where = { folder, held: new Set(['notes.txt', 'pack', 'pack/a.txt']) };
const meta = { appVersion: '9.8.7', now: new Date('2026-11-29T02:00:00Z') };

const rows = [
  { role: 'user', content: 'Look at "this"\n  {"messages": []}\n    indented', timestamp: 1714565000, attachments: [{ kind: 'file', filename: 'notes.txt', path: `${folder}/notes.txt`, size: 3, mime: 'text/plain', is_image: false }] },
  { role: 'assistant', content: '```js\nconst key = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd";\n```\n', timestamp: 1714565001, reasoning: 'why\nnot' },
  {
    role: 'user',
    content: 'second version',
    timestamp: 1714565002,
    _versions: { before: [[{ role: 'user', content: 'first version', timestamp: 1714565000 }, { role: 'assistant', content: 'old reply' }]], after: [] },
    attachments: [{ kind: 'extraction', name: 'pack.zip', path: `${folder}/pack`, extracted: true, file_count: 1 }, { kind: 'file', filename: 'gone.txt', path: `${folder}/gone.txt` }],
  },
  { role: 'tool', content: '', tool_call_id: 'call_1' },
  { role: 'assistant', content: 'ünïcödé ✓ 😀 \u2028 end', timestamp: 1e300 },
] as unknown as wire.Message[];

function source(messages: readonly wire.Message[], draft?: ExportSource['draft']): ExportSource {
  return {
    title: 'Trip "plan"\nwith token sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd',
    created_at: '2024-05-01T12:03:09.000Z',
    updated_at: '2024-05-02T08:00:00.000Z',
    messages,
    attachments: [{ filename: 'notes.txt', path: `${folder}/notes.txt`, size: 3, mime: 'text/plain', is_image: false }] as unknown as wire.Attachment[],
    ...(draft ? { draft } : {}),
  };
}

async function list(parts: AsyncIterable<string | Buffer>): Promise<(string | Buffer)[]> {
  const out: (string | Buffer)[] = [];
  for await (const p of parts) out.push(p);
  return out;
}

/** The member's text: its parts' UTF-8 bytes in order (a kept Markdown's Buffers may cut a character in two). */
async function text(parts: AsyncIterable<string | Buffer>): Promise<string> {
  return Buffer.concat((await list(parts)).map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : p))).toString('utf8');
}

async function both(messages: readonly wire.Message[], draft?: ExportSource['draft']): Promise<{ whole: { json: string; md: string }; parts: { json: string; md: string } }> {
  const doc = exportedConversation(source(messages, draft), where, meta);
  const head = exportedConversation(source([], draft), where, meta);
  return {
    whole: { json: JSON.stringify(doc, null, 2), md: conversationMarkdown(doc) },
    parts: { json: await text(conversationJsonParts(head, messages, where)), md: await text(conversationMarkdownParts(head, messages, where)) },
  };
}

describe('a conversation written a row at a time', () => {
  it('has the bytes of the whole document: JSON and Markdown, every row shape, redacted and made relative', async () => {
    const { whole, parts } = await both(rows, { text: 'unsent words', attachments: [{ path: `${folder}/notes.txt` }] });
    expect(parts.json).toBe(whole.json);
    expect(parts.md).toBe(whole.md);
    // What it must hold, so the equality above is about a real document.
    expect(parts.json).not.toContain('sk-proj-AbCdEfGhIjKl');
    expect(parts.json).toContain('"path": "attachments/pack"');
    expect(parts.json).toContain('"first version"');
    expect(JSON.parse(parts.json).draft).toEqual({ text: 'unsent words', attachments: [{ path: 'attachments/notes.txt' }] });
  });

  it('both members from one pass (the JSON first, as an archive writes them; rows as an async source) have the same bytes', async () => {
    const doc = exportedConversation(source(rows), where, meta);
    let passes = 0;
    const parts = conversationParts(exportedConversation(source([]), where, meta), async function* () {
      passes++;
      yield* rows;
    }, where);
    expect(await text(parts.json())).toBe(JSON.stringify(doc, null, 2));
    expect(await text(parts.markdown())).toBe(conversationMarkdown(doc));
    expect(passes).toBe(1);
  });

  it('an empty conversation and a single row too', async () => {
    for (const messages of [[], rows.slice(0, 1)]) {
      const { whole, parts } = await both(messages);
      expect(parts.json).toBe(whole.json);
      expect(parts.md).toBe(whole.md);
    }
  });

  it('a row at a time: one part per row after the head, none holding the whole', async () => {
    const many = Array.from({ length: 50 }, (_, i) => ({ role: 'user', content: `row ${i}`, timestamp: 1714565000 + i }) as unknown as wire.Message);
    const head = exportedConversation(source([]), where, meta);
    const json = (await list(conversationJsonParts(head, many, where))) as string[];
    expect(json.length).toBe(many.length + 3);
    expect(json.filter((p) => p.includes('"row ')).every((p) => p.match(/"row \d+"/g)!.length === 1)).toBe(true);
    expect((await list(conversationMarkdownParts(head, many, where))).length).toBe(many.length + 2);
  });

  it(`a conversation whose Markdown is over ${MARKDOWN_KEPT_BYTES} bytes: its Markdown read again (nothing of it kept), the same bytes`, async () => {
    // Rows of multi-byte text (each 2-4 UTF-8 bytes a character), together just over the bound.
    const row = (i: number) => ({ role: i % 2 ? 'assistant' : 'user', content: `${i} ünïcödé ✓ 😀 `.repeat(9_000), timestamp: 1714565000 + i }) as unknown as wire.Message;
    // A row's block: at least its text, at most its text and a heading (rows 10-99 the longest).
    const least = Buffer.byteLength(row(0).content, 'utf8');
    const most = Buffer.byteLength(row(99).content, 'utf8') + 100;
    const long = Array.from({ length: Math.ceil(MARKDOWN_KEPT_BYTES / least) + 1 }, (_, i) => row(i));
    const short = long.slice(0, Math.floor(MARKDOWN_KEPT_BYTES / most) - 1);
    for (const [messages, readTimes] of [[long, 2], [short, 1]] as const) {
      const doc = exportedConversation(source(messages), where, meta);
      let passes = 0;
      const parts = conversationParts(exportedConversation(source([]), where, meta), async function* () {
        passes++;
        yield* messages;
      }, where);
      expect(await text(parts.json())).toBe(JSON.stringify(doc, null, 2));
      const md = await list(parts.markdown());
      expect(Buffer.concat(md.map((p) => (typeof p === 'string' ? Buffer.from(p) : p))).toString('utf8')).toBe(conversationMarkdown(doc));
      expect(passes).toBe(readTimes);
      // Kept, it comes as the Buffers it was kept in (no string of it); read again, a string per row.
      expect(md.filter((p) => typeof p !== 'string').length > 0).toBe(readTimes === 1);
    }
    // Tens of MiB redacted, on a shared machine.
  }, 120_000);
});
