import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildDocx, wHeading, wPara } from '../office/testing/fixtures.js';
import type { ChatAttachment } from '../core/wire.js';
import { AGENT_OPENING_NOTE, buildTurnMessages, MAX_IMAGE_BYTES, truncationMarker, type StoredMessage } from './input.js';
import type { AgentConfig, ChatMessage, ContentPart } from './types.js';
import { stopRow } from './turn-rows.js';
import { MAX_ARRIVED_FILES_READ } from './arrivals-input.js';

/** The messages a turn sends (the report is asserted apart). */
const turnMessages = async (...args: Parameters<typeof buildTurnMessages>): Promise<ChatMessage[]> => (await buildTurnMessages(...args)).messages;

let tmp: string;
let root: string;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-agent-input-'));
  root = path.join(tmp, 'attachments');
  fs.mkdirSync(root);
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

// A real 4×3 PNG: small enough that the agent gets these very bytes (server/image/downscale.ts).
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAQAAAADCAIAAAA7ljmRAAAAEklEQVR4nGP4z8AARwzEcQAAnwQIAATvUZkAAAAASUVORK5CYII=', 'base64');

function config(over: Partial<AgentConfig> = {}): AgentConfig {
  return { baseUrl: 'http://127.0.0.1:1', model: 'm', kind: 'openai', idleTimeoutMs: 1000, contextChars: 200_000, ...over };
}
function upload(name: string, data: string | Buffer, mime = 'application/octet-stream', dir = root): ChatAttachment {
  const file = path.join(dir, name);
  fs.writeFileSync(file, data);
  return { kind: 'file', filename: name, path: file, mime, size: fs.statSync(file).size, is_image: mime.startsWith('image/') };
}
async function userParts(attachments: ChatAttachment[], over: Partial<AgentConfig> = {}, text = 'look'): Promise<ContentPart[]> {
  const messages = await turnMessages([], text, attachments, config(over), { roots: [root] });
  const content = messages.at(-1)!.content;
  expect(Array.isArray(content)).toBe(true);
  const parts = content as ContentPart[];
  // Hermes' gateway accepts only these two: never `file` or `input_file`.
  for (const part of parts) expect(['text', 'image_url']).toContain(part.type);
  return parts;
}
const allText = (parts: ContentPart[]) => parts.map((p) => (p.type === 'text' ? p.text : '')).join('\n');

describe('the new user turn', () => {
  it('is the text alone when nothing is attached', async () => {
    expect(await turnMessages([], 'hi', [], config(), { roots: [root] })).toEqual([{ role: 'user', content: 'hi' }]);
  });

  it('sends an image as a data URL whose bytes are the uploaded file', async () => {
    const parts = await userParts([upload('shot.png', PNG, 'image/png')]);
    const image = parts.find((p) => p.type === 'image_url') as { image_url: { url: string } };
    const [prefix, b64] = image.image_url.url.split(',');
    expect(prefix).toBe('data:image/png;base64');
    expect(Buffer.from(b64!, 'base64').equals(PNG)).toBe(true);
  });

  it('names an image the image library cannot decode (a bare BMP header, a broken AVIF) instead of sending bytes a model would refuse', async () => {
    const bmp = Buffer.concat([Buffer.from('BM'), Buffer.alloc(30, 1)]);
    const avif = Buffer.concat([Buffer.from([0, 0, 0, 0x1c]), Buffer.from('ftypavif'), Buffer.alloc(20, 0)]);
    const parts = await userParts([upload('a.bmp', bmp, 'image/bmp'), upload('b.avif', avif, 'image/avif')]);
    expect(parts.some((p) => p.type === 'image_url')).toBe(false);
    expect(allText(parts)).toMatch(/\[Attached file "a\.bmp" \(image\/bmp, 32 bytes\), stored at .*; not sent: not a readable image/);
    expect(allText(parts)).toMatch(/\[Attached file "b\.avif" \(image\/avif, 32 bytes\), stored at .*; not sent: not a readable image/);
  });

  it('sends a UTF-16 text file as its text, not as a binary file', async () => {
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('wide notes ✓', 'utf16le')]);
    const parts = await userParts([upload('wide.txt', bytes, 'text/plain')]);
    expect(allText(parts)).toContain('Attached file "wide.txt" (text, UTF-16LE):\nwide notes ✓');
  });

  it('sends text iconv wrote in Windows-1252, ISO-8859-1 and UTF-16 without a mark decoded, naming the encoding', async () => {
    const fixture = (name: string) => fs.readFileSync(new URL(`../workspace/testing/encodings/${name}`, import.meta.url));
    const csv = fixture('source-utf8.csv').toString('utf8');
    const log = fixture('source-latin1.txt').toString('utf8');
    const parts = await userParts([
      upload('prices.csv', fixture('prices-windows-1252.csv'), 'text/csv'),
      upload('server.log', fixture('server-iso-8859-1.txt'), 'text/plain'),
      upload('wide.csv', fixture('prices-utf-16le.csv'), 'text/csv'),
      upload('plain.txt', 'plain UTF-8 café', 'text/plain'),
    ]);
    const all = allText(parts);
    expect(all).toContain(`Attached file "prices.csv" (text, Windows-1252):\n${csv}`);
    expect(all).toContain(`Attached file "server.log" (text, ISO-8859-1):\n${log}`);
    expect(all).toContain(`Attached file "wide.csv" (text, UTF-16LE):\n${csv}`);
    expect(all).toContain('Attached file "plain.txt":\nplain UTF-8 café');
    expect(all).not.toContain('stored at');
  });

  it('does not believe an image type the bytes deny', async () => {
    const parts = await userParts([upload('fake.png', 'just words', 'image/png')]);
    expect(parts.some((p) => p.type === 'image_url')).toBe(false);
    expect(allText(parts)).toContain('just words');
  });

  it('names an image over the size limit instead of sending it', async () => {
    const big = Buffer.alloc(MAX_IMAGE_BYTES + 1);
    PNG.copy(big);
    const parts = await userParts([upload('huge.png', big, 'image/png')]);
    expect(parts.some((p) => p.type === 'image_url')).toBe(false);
    expect(allText(parts)).toMatch(/huge\.png.*image limit/);
  });

  it('inlines a text or code file under a header naming it', async () => {
    const parts = await userParts([upload('main.py', 'print("hello")\n', 'text/x-python')]);
    expect(parts[0]).toEqual({ type: 'text', text: 'look' });
    expect(allText(parts)).toContain('Attached file "main.py":\nprint("hello")');
  });

  it('sends a docx as its Markdown (and writes the sidecar)', async () => {
    const doc = await buildDocx(wHeading(1, 'Quarterly plan') + wPara('Ship the agent by Friday.'));
    const a = upload('plan.docx', doc, 'application/vnd.openxmlformats-officedocument.wordprocessingml.document');
    const text = allText(await userParts([a]));
    expect(text).toContain('# Quarterly plan');
    expect(text).toContain('Ship the agent by Friday.');
    expect(fs.existsSync(a.path + '.md')).toBe(true);
  });

  it('sends an audio file as its transcript', async () => {
    const a = upload('memo.webm', Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0, 1]), 'audio/webm');
    const messages = await turnMessages([], '', [a], config(), { roots: [root], transcribe: async () => 'buy more coffee' });
    expect(allText(messages[0]!.content as ContentPart[])).toContain('buy more coffee');
  });

  it('names a binary file: its name, type, size and stored path', async () => {
    const a = upload('blob.bin', Buffer.from([0, 1, 2, 3, 255]), 'application/octet-stream');
    expect(allText(await userParts([a]))).toContain(`"blob.bin" (application/octet-stream, 5 bytes), stored at ${a.path}`);
  });

  it('lists an extracted archive with its small text members inlined', async () => {
    const dest = path.join(root, 'src');
    fs.mkdirSync(path.join(dest, 'lib'), { recursive: true });
    fs.writeFileSync(path.join(dest, 'README.md'), '# Read me');
    fs.writeFileSync(path.join(dest, 'lib', 'a.bin'), Buffer.from([0, 0, 0]));
    const text = allText(await userParts([{ kind: 'extraction', name: 'src.zip', path: dest, extracted: true }]));
    expect(text).toContain('Extracted archive "src.zip" (2 files');
    expect(text).toContain(`- ${path.join('lib', 'a.bin')} (3 bytes)`);
    expect(text).toContain('Attached file "src.zip/README.md":\n# Read me');
  });

  it('reads an archive sent with its extraction once, as the extraction', async () => {
    const dest = path.join(root, 'src');
    fs.mkdirSync(dest);
    fs.writeFileSync(path.join(dest, 'README.md'), '# Read me');
    const zip = upload('src.zip', Buffer.from('PK\x05\x06' + '\0'.repeat(18), 'latin1'), 'application/zip');
    const text = allText(await userParts([zip, { kind: 'extraction', name: 'src.zip', path: dest, extracted: true }]));
    expect(text.match(/src\.zip/g)?.length).toBe(2);
    expect(text).toContain('Extracted archive "src.zip" (1 file,');
    expect(text).toContain('Attached file "src.zip/README.md":\n# Read me');
  });

  it('cuts inlined text at the budget with a visible marker', async () => {
    const parts = await userParts([upload('long.txt', 'a'.repeat(1000), 'text/plain'), upload('next.txt', 'b'.repeat(50), 'text/plain')], {
      contextChars: 304,
    });
    const text = allText(parts);
    // 'look' (4) leaves 300 characters: the first file keeps them, the second keeps none.
    expect(text).toContain('a'.repeat(300) + '\n' + truncationMarker(700, 'long.txt'));
    expect(text).not.toContain('a'.repeat(301));
    expect(text).toContain(truncationMarker(50, 'next.txt'));
  });

  it('counts what it never read of a big file in the marker', async () => {
    const text = allText(await userParts([upload('big.log', 'x'.repeat(100_000), 'text/plain')], { contextChars: 1004 }));
    expect(text).toContain(truncationMarker(99_000, 'big.log'));
  });

  it('never reads a file outside the attachment folder, nor through a symlink leaving it', async () => {
    const outside = path.join(tmp, 'secret.txt');
    fs.writeFileSync(outside, 'TOP SECRET');
    const direct: ChatAttachment = { kind: 'file', filename: 'secret.txt', path: outside, mime: 'text/plain', size: 10, is_image: false };
    const link = path.join(root, 'innocent.txt');
    fs.symlinkSync(outside, link);
    const viaLink: ChatAttachment = { kind: 'file', filename: 'innocent.txt', path: link, mime: 'text/plain', size: 10, is_image: false };
    const dotted: ChatAttachment = { ...direct, path: path.join(root, '..', 'secret.txt') };
    const text = allText(await userParts([direct, viaLink, dotted]));
    expect(text).not.toContain('TOP SECRET');
    expect(text).toContain('not readable from the attachment folder');
  });
});

describe('history', () => {
  // notes.txt is gone from the attachment folder: named with why, never by its path.
  const NAMED = '[attached earlier: "notes.txt" — cannot be read: it is no longer in the attachment folder]';
  const second: ChatMessage = { role: 'user', content: [{ type: 'text', text: 'second question' }, { type: 'text', text: NAMED }] };
  const history: StoredMessage[] = [
    { role: 'user', content: 'first question', attachments: [] },
    { role: 'assistant', content: 'first answer' },
    { role: 'user', content: 'second question', attachments: [{ filename: 'notes.txt', path: '/x/notes.txt' }] },
    { role: 'assistant', content: '**Task cancelled:** stopped', _error: true },
    { role: 'tool', content: 'tool output' },
    { role: 'assistant', content: 'second answer' },
  ];

  it('openai: the history, then the new turn', async () => {
    const messages = await turnMessages(history, 'third', [], config(), { roots: [root] });
    expect(messages).toEqual<ChatMessage[]>([
      { role: 'user', content: 'first question' },
      { role: 'assistant', content: 'first answer' },
      second,
      { role: 'assistant', content: 'second answer' },
      { role: 'user', content: 'third' },
    ]);
    expect(JSON.stringify(messages)).not.toContain('/x/');
  });

  it('a stopped turn: the partial reply is sent, the stop row (shown as a quiet marker) never is', async () => {
    for (const by of ['user', 'shutdown'] as const) {
      // The rows turns.ts stores for a stop: the user row, the partial reply, the stop row.
      const partial = { role: 'assistant', content: 'Once upon', _partial: true };
      const stopped: StoredMessage[] = [{ role: 'user', content: 'write a story', attachments: [] }, partial, stopRow(by)];
      const messages = await turnMessages(stopped, 'go on', [], config(), { roots: [root] });
      expect(messages).toEqual<ChatMessage[]>([
        { role: 'user', content: 'write a story' },
        { role: 'assistant', content: 'Once upon' },
        { role: 'user', content: 'go on' },
      ]);
      expect(JSON.stringify(messages)).not.toMatch(/cancel|Satchel stopped/i);
    }
  });

  it('openai: trims the oldest first to the budget, never opening with a reply', async () => {
    const newest = 'second answer'.length + 'second question'.length + NAMED.length;
    const messages = await turnMessages(history, 'third', [], config({ contextChars: 'third'.length + newest + 'first answer'.length }), { roots: [root] });
    expect(messages.map((m) => m.content)).toEqual([second.content, 'second answer', 'third']);
  });

  it('a system prompt goes first and is drawn from the budget before the history', async () => {
    const prompt = 'Answer in French.';
    const newest = 'second answer'.length + 'second question'.length + NAMED.length;
    // Room for the prompt, the new turn and the last exchange: the first exchange is dropped to make room for the prompt.
    const budget = prompt.length + 'third'.length + newest + 'first answer'.length;
    const messages = await turnMessages(history, 'third', [], config({ contextChars: budget }), { roots: [root], systemPrompt: prompt });
    expect(messages.map((m) => [m.role, m.content])).toEqual([
      ['system', prompt],
      ['user', second.content],
      ['assistant', 'second answer'],
      ['user', 'third'],
    ]);
    const kept = await turnMessages(history, 'third', [], config({ kind: 'hermes' }), { roots: [root], systemPrompt: prompt }, true);
    expect(kept).toEqual<ChatMessage[]>([{ role: 'system', content: prompt }, { role: 'user', content: 'third' }]);
  });

  it('a conversation that opens with the agent (an import) sends that row, after a line saying so (issue 34)', async () => {
    const opening: StoredMessage[] = [
      { role: 'assistant', content: 'Hello! The code word is heliotrope.' },
      { role: 'user', content: 'ok', attachments: [] },
      { role: 'assistant', content: 'Ask me anything.' },
    ];
    const messages = await turnMessages(opening, 'what was the code word?', [], config(), { roots: [root] });
    expect(messages).toEqual<ChatMessage[]>([
      { role: 'user', content: AGENT_OPENING_NOTE },
      { role: 'assistant', content: 'Hello! The code word is heliotrope.' },
      { role: 'user', content: 'ok' },
      { role: 'assistant', content: 'Ask me anything.' },
      { role: 'user', content: 'what was the code word?' },
    ]);
    // After the conversation's system prompt, still.
    const prompted = await turnMessages(opening, 'again', [], config(), { roots: [root], systemPrompt: 'Be brief.' });
    expect(prompted.slice(0, 3).map((m) => m.role)).toEqual(['system', 'user', 'assistant']);
    // A reply whose question the budget cut is still dropped: it is no opening, it is half an exchange.
    const cut = await turnMessages(opening, 'again', [], config({ contextChars: 'again'.length + 'Ask me anything.'.length + 'ok'.length + 5 }), { roots: [root] });
    expect(cut.map((m) => m.content)).toEqual(['ok', 'Ask me anything.', 'again']);
  });

  it('hermes: the history too, unless the gateway keeps exactly it (hermes-continuity.ts)', async () => {
    const full = await turnMessages(history, 'third', [], config({ kind: 'hermes' }), { roots: [root] });
    expect(full.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
  });

  it('history kept by the gateway: only the new turn', async () => {
    const a = upload('n.txt', 'note', 'text/plain');
    const messages = await turnMessages(history, 'third', [a], config({ kind: 'hermes' }), { roots: [root] }, true);
    expect(messages).toHaveLength(1);
    expect(messages[0]!.role).toBe('user');
    expect(allText(messages[0]!.content as ContentPart[])).toContain('note');
  });
});

describe('Inbox arrival rows (arrivals-input.ts)', () => {
  const T = 1_800_000_000;
  function arrivalRow(at: number, from: string, ...files: ChatAttachment[]): StoredMessage {
    const what = files.length === 1 ? (files[0] as { filename: string }).filename : `${files.length} files`;
    return { role: 'system', content: `${what} arrived from ${from}`, timestamp: at, attachments: files, arrival: { source: 'folder', from, last_at: at } };
  }

  it('files that arrived since the last message are read into the new turn, as dropped files are; earlier ones are in the history, read', async () => {
    const early = upload('old-invoice.txt', 'INVOICE 2025 total 10', 'text/plain');
    const report = upload('report.txt', 'revenue went up 12%', 'text/plain');
    const scan = upload('scan.png', PNG, 'image/png');
    const history: StoredMessage[] = [
      arrivalRow(T, 'Downloads', early),
      { role: 'user', content: 'file it', timestamp: T + 10, attachments: [] },
      { role: 'assistant', content: 'filed', timestamp: T + 20 },
      arrivalRow(T + 30, 'Downloads', report, scan),
    ];
    const messages = await turnMessages(history, 'what came in today?', [], config(), { roots: [root] });
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    // The earlier arrival: Satchel's note on the person's side, merged with the message after it, never a system prompt.
    expect(messages[0]!.content).toEqual([
      { type: 'text', text: 'old-invoice.txt arrived from Downloads (2027-01-15 08:00 UTC)' },
      { type: 'text', text: 'Attached file "old-invoice.txt":\nINVOICE 2025 total 10' },
      { type: 'text', text: 'file it' },
    ]);
    expect(JSON.stringify(messages)).not.toContain(root);
    const parts = messages[2]!.content as ContentPart[];
    expect(parts[0]).toEqual({ type: 'text', text: 'what came in today?' });
    expect(parts[1]).toEqual({ type: 'text', text: 'Files that arrived since the last message (from watched folders or opened with Satchel):' });
    expect(parts[2]).toEqual({ type: 'text', text: '2 files arrived from Downloads (2027-01-15 08:00 UTC)' });
    expect(allText(parts)).toContain('revenue went up 12%');
    expect(parts.filter((p) => p.type === 'image_url')).toHaveLength(1);
    // Nothing of the new arrivals in the history: they are in the turn, once.
    expect(JSON.stringify(messages.slice(0, 2))).not.toContain('report.txt');
  });

  it('with the gateway keeping the history, the new arrivals still go with the turn', async () => {
    const report = upload('report.txt', 'revenue went up 12%', 'text/plain');
    const history: StoredMessage[] = [
      { role: 'user', content: 'hi', timestamp: T },
      { role: 'assistant', content: 'hello', timestamp: T + 1 },
      arrivalRow(T + 30, 'Downloads', report),
    ];
    const messages = await turnMessages(history, 'anything new?', [], config({ kind: 'hermes' }), { roots: [root] }, true);
    expect(messages).toHaveLength(1);
    expect(allText(messages[0]!.content as ContentPart[])).toContain('revenue went up 12%');
  });

  it('an arrival stored while a turn ran (before that turn\'s rows, after its start) is new to the agent', async () => {
    const late = upload('late.txt', 'arrived mid-turn', 'text/plain');
    const history: StoredMessage[] = [arrivalRow(T + 5, 'Downloads', late), { role: 'user', content: 'q', timestamp: T }, { role: 'assistant', content: 'a', timestamp: T + 9 }];
    const messages = await turnMessages(history, 'and now?', [], config(), { roots: [root] });
    expect(allText(messages.at(-1)!.content as ContentPart[])).toContain('arrived mid-turn');
  });

  it(`a burst reads ${MAX_ARRIVED_FILES_READ} files and names the rest`, async () => {
    const files = Array.from({ length: MAX_ARRIVED_FILES_READ + 3 }, (_, i) => upload(`f${i}.txt`, `body ${i}`, 'text/plain'));
    const messages = await turnMessages([arrivalRow(T, 'Scans', ...files)], 'summarize', [], config(), { roots: [root] });
    const text = allText(messages.at(-1)!.content as ContentPart[]);
    expect(text).toContain(`body ${MAX_ARRIVED_FILES_READ - 1}`);
    expect(text).not.toContain(`body ${MAX_ARRIVED_FILES_READ}`);
    expect(text).toContain(`3 more arrived file(s), named only (at most ${MAX_ARRIVED_FILES_READ} are read per message):`);
    expect(text).toContain(`[arrived, not read in this turn: "f${MAX_ARRIVED_FILES_READ + 2}.txt" at ${files.at(-1)!.path}]`);
  });
});
