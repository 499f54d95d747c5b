// Issue 36: every earlier document stays available to a later turn — whole in its own row while it fits,
// else the passages that answer the new message — named when it cannot be read, never by a local path; and
// the turn's report says which.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChatAttachment } from '../core/wire.js';
import { DocTexts } from '../context/doc-text.js';
import { MAX_EARLIER_DOCUMENTS, PASSAGES_HEADING } from '../context/plan.js';
import { MAX_TEXT_PART_CHARS } from './content-parts.js';
import type { WorkspaceContext } from '../context/types.js';
import { buildPdf } from '../workspace/testing/pdf.js';
import { buildTurnMessages, type StoredMessage } from './input.js';
import type { AgentConfig, ChatMessage, ContentPart } from './types.js';

let tmp: string;
let root: string;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-input-context-'));
  root = path.join(tmp, 'attachments', 'c72b');
  fs.mkdirSync(root, { recursive: true });
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

const config = (over: Partial<AgentConfig> = {}): AgentConfig => ({ baseUrl: 'http://127.0.0.1:1', model: 'm', kind: 'openai', idleTimeoutMs: 1000, contextChars: 200_000, ...over });

function upload(name: string, data: string | Buffer, mime: string): ChatAttachment {
  const file = path.join(root, name);
  fs.writeFileSync(file, data);
  return { kind: 'file', filename: name, path: file, mime, size: fs.statSync(file).size, is_image: mime.startsWith('image/') };
}

/** A page of `lines` lines of text (Helvetica, one line per text operator). */
const page = (lines: string[]) => `BT /F1 9 Tf 40 760 Td ${lines.map((l) => `(${l}) Tj 0 -11 Td`).join(' ')} ET`;
/** `n` sentences on a topic: a page's worth of words only that page has. */
const topic = (n: number, words: string) => Array.from({ length: n }, (_, i) => `Line ${i + 1}: ${words}.`);
const PAGE1 = topic(14, 'quarterly revenue in the northern region grew against the forecast');
const PAGE2 = topic(14, 'the Zephyr pump warranty covers seals and bearings for seven years');
const PAGE3 = topic(14, 'shipping to the Lisbon depot leaves every second Tuesday by rail');
const report = () => upload('Quarterly_report_Q3.pdf', buildPdf({ pages: [page(PAGE1), page(PAGE2), page(PAGE3)] }), 'application/pdf');

const T = 1_800_000_000;
const turnOne = (files: ChatAttachment[], text = 'Here is the report'): StoredMessage[] => [
  { role: 'user', content: text, timestamp: T, attachments: files },
  { role: 'assistant', content: 'Thanks, I read it.', timestamp: T + 5 },
];

const textOf = (m: ChatMessage) => (typeof m.content === 'string' ? m.content : m.content.map((p) => (p.type === 'text' ? p.text : '')).join('\n'));
const allText = (ms: ChatMessage[]) => ms.map(textOf).join('\n');
const QUESTION = 'What did page 2 say about the pump warranty?';

describe('an earlier PDF in a follow-up turn', () => {
  it('is inlined whole in its own row while the budget allows, and the report says whole', async () => {
    const a = report();
    const { messages, report: r } = await buildTurnMessages(turnOne([a]), QUESTION, [], config(), { roots: [root], sessionId: 'c72b' });
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    // In the row that carried it, after its text, as in its own turn.
    expect(textOf(messages[0]!)).toContain('Here is the report');
    for (const line of [...PAGE1, ...PAGE2, ...PAGE3]) expect(textOf(messages[0]!)).toContain(line);
    expect(messages[2]!.content).toBe(QUESTION);
    expect(r).toEqual({ documents: [{ name: 'Quarterly_report_Q3.pdf', origin: 'attachment', state: 'whole' }], summary: 'The agent has the one document whole', via: 'sent' });
    expect(JSON.stringify(messages)).not.toContain(tmp);
  });

  it('with a small budget, sends the passages that answer, labelled, in the new message; the report says "page 2"', async () => {
    const a = report();
    const { messages, report: r } = await buildTurnMessages(turnOne([a]), QUESTION, [], config({ contextChars: 1_800 }), { roots: [root], sessionId: 'c72b' });
    const last = messages.at(-1)!;
    const parts = last.content as ContentPart[];
    expect(parts[0]).toEqual({ type: 'text', text: QUESTION });
    // One part: the heading, then each passage under its label (a gateway reads at most 1,000 parts).
    expect(parts).toHaveLength(2);
    expect((parts[1] as { text: string }).text.startsWith(`${PASSAGES_HEADING}\n\n--- "Quarterly_report_Q3.pdf", page 2 ---\nLine 1: the Zephyr pump warranty`)).toBe(true);
    for (const line of PAGE2) expect(textOf(last)).toContain(line);
    // Only what answers: the other pages' words are not sent.
    expect(allText(messages)).not.toContain('northern region');
    expect(allText(messages)).not.toContain('Lisbon');
    expect(r.documents).toEqual([{ name: 'Quarterly_report_Q3.pdf', origin: 'attachment', state: 'passages', where: 'page 2' }]);
    expect(r.summary).toBe('The agent does not have the one document whole');
    expect(JSON.stringify(messages)).not.toContain(tmp);
    expect(JSON.stringify(messages)).not.toContain('attached earlier: "Quarterly_report_Q3.pdf" at');
  });

  it('keeps the history when the document does not fit whole: its row names it, its page 2 goes as passages', async () => {
    const long = (words: string) => topic(40, words);
    const a = upload('manual.pdf', buildPdf({ pages: [page(long('installing the unit on a concrete base')), page(long('the Zephyr pump warranty covers seals for seven years')), page(long('cleaning the intake filter monthly'))] }), 'application/pdf');
    const { messages, report: r } = await buildTurnMessages(turnOne([a]), QUESTION, [], config({ contextChars: 6_000 }), { roots: [root], sessionId: 'c72b' });
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(textOf(messages[0]!)).toContain('Here is the report');
    expect(textOf(messages[0]!)).toContain('[attached earlier: "manual.pdf" — not repeated whole in this message');
    expect(textOf(messages[1]!)).toBe('Thanks, I read it.');
    expect(textOf(messages[2]!)).toContain('Line 40: the Zephyr pump warranty covers seals for seven years.');
    expect(r.documents[0]!.state).toBe('passages');
    expect(r.documents[0]!.where).toMatch(/^pages /);
    for (const n of [1, 10, 20, 30, 40]) expect(textOf(messages[2]!)).toContain(`Line ${n}: the Zephyr pump warranty covers seals for seven years.`);
  });

  it('reaches a document of a history row the budget dropped', async () => {
    const a = report();
    const rows: StoredMessage[] = [...turnOne([a]), { role: 'user', content: 'x'.repeat(5_000), timestamp: T + 10 }, { role: 'assistant', content: 'y'.repeat(5_000), timestamp: T + 11 }];
    const { messages, report: r } = await buildTurnMessages(rows, QUESTION, [], config({ contextChars: 3_000 }), { roots: [root], sessionId: 'c72b' });
    expect(allText(messages)).not.toContain('Here is the report');
    expect(textOf(messages.at(-1)!)).toContain('--- "Quarterly_report_Q3.pdf", page 2 ---');
    expect(r.documents[0]).toMatchObject({ state: 'passages' });
  });

  it('names a document that cannot be read with its reason, and one left out for the budget in a note', async () => {
    const locked = upload('memo-encrypted.pdf', fs.readFileSync(new URL('../content/testing/memo-encrypted.pdf', import.meta.url)), 'application/pdf');
    const blob = upload('blob.bin', Buffer.from([0, 1, 2, 3, 255]), 'application/octet-stream');
    const { messages, report: r } = await buildTurnMessages(turnOne([locked, blob]), 'and the memo?', [], config(), { roots: [root], sessionId: 'c72b' });
    expect(textOf(messages[0]!)).toContain('[attached earlier: "memo-encrypted.pdf" — cannot be read: encrypted: remove the password and attach it again]');
    expect(textOf(messages[0]!)).toMatch(/\[attached earlier: "blob\.bin" — cannot be read: 5 bytes the agent cannot read/);
    expect(r.documents.map((d) => [d.name, d.state, d.reason?.slice(0, 9)])).toEqual([
      ['memo-encrypted.pdf', 'unreadable', 'encrypted'],
      ['blob.bin', 'unreadable', '5 bytes t'],
    ]);
    expect(JSON.stringify(messages)).not.toContain(tmp);
    // Left out for the budget: the history and the passages cannot hold it.
    const notes = upload('notes.txt', 'z'.repeat(50_000), 'text/plain');
    const tight = await buildTurnMessages(turnOne([notes]), 'hi', [], config({ contextChars: 100 }), { roots: [root], sessionId: 'c72b' });
    expect(tight.report.documents).toEqual([{ name: 'notes.txt', origin: 'attachment', state: 'not_sent', reason: 'budget' }]);
    expect(textOf(tight.messages.at(-1)!)).toContain('[Not sent in this turn (no room left in the message budget): "notes.txt".');
  });

  it('re-sends at most 4 earlier images as images, the newest', async () => {
    const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAQAAAADCAIAAAA7ljmRAAAAEklEQVR4nGP4z8AARwzEcQAAnwQIAATvUZkAAAAASUVORK5CYII=', 'base64');
    const rows: StoredMessage[] = [];
    for (let i = 1; i <= 6; i++) rows.push(...turnOne([upload(`shot-${i}.png`, PNG, 'image/png')], `shot ${i}`));
    const { messages, report: r } = await buildTurnMessages(rows, 'compare them', [], config(), { roots: [root], sessionId: 'c72b' });
    const images = messages.map((m) => (typeof m.content === 'string' ? 0 : m.content.filter((p) => p.type === 'image_url').length));
    expect(images).toEqual([0, 0, 0, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0]);
    expect(r.documents.filter((d) => d.state === 'whole').map((d) => d.name)).toEqual(['shot-6.png', 'shot-5.png', 'shot-4.png', 'shot-3.png']);
  });

  it("with Hermes keeping the history: not re-sent, reported as its own turn's report said", async () => {
    const a = report();
    const rows = turnOne([a]);
    rows[0]!.context = { documents: [{ name: 'Quarterly_report_Q3.pdf', origin: 'attachment', state: 'whole' }], summary: 's', via: 'sent' };
    const { messages, report: r } = await buildTurnMessages(rows, QUESTION, [], config({ kind: 'hermes' }), { roots: [root], sessionId: 'c72b' }, true);
    expect(messages).toEqual([{ role: 'user', content: QUESTION }]);
    expect(r).toEqual({ documents: [{ name: 'Quarterly_report_Q3.pdf', origin: 'attachment', state: 'whole' }], summary: 'The agent has the one document whole', via: 'hermes_history' });
  });

  it('tells the agent of the workspace (listing) and retrieves from its files', async () => {
    const wsRoot = path.join(tmp, 'project');
    fs.mkdirSync(wsRoot);
    fs.writeFileSync(path.join(wsRoot, 'pumps.md'), '# Pumps\n\nThe Zephyr pump warranty is seven years.\n\n# Other\n\nNothing.');
    const file = path.join(wsRoot, 'pumps.md');
    const ws: WorkspaceContext = {
      name: 'project',
      listing: 'Workspace "project" (1 file):\n- pumps.md',
      listed: 1,
      total: 1,
      changed: [],
      files: [{ key: 'workspace:pumps.md', name: 'pumps.md', origin: 'workspace', attachment: { kind: 'file', filename: 'pumps.md', path: file, mime: 'text/markdown', size: 1, is_image: false }, uri: 'satchel://session/c72b/workspace/pumps.md' }],
      root: wsRoot,
    };
    const { messages, report: r } = await buildTurnMessages([], 'how long is the pump warranty?', [], config(), { roots: [root, wsRoot], sessionId: 'c72b', workspace: ws });
    const last = textOf(messages.at(-1)!);
    expect(last).toContain('Workspace "project" (1 file):\n- pumps.md');
    expect(last).toContain('--- "pumps.md", section "Pumps" ---');
    expect(r.workspace).toEqual({ name: 'project', listed: 1, total: 1, changed: 0 });
    expect(r.documents).toContainEqual({ name: 'pumps.md', origin: 'workspace', state: 'passages', where: '2 sections' });
  });

  it('reads an earlier document once across turns (the shared DocTexts)', async () => {
    const a = report();
    const texts = new DocTexts();
    let reads = 0;
    const opts = { roots: [root], sessionId: 'c72b', docTexts: texts, onAttachmentText: () => void reads++ };
    await buildTurnMessages(turnOne([a]), 'one', [], config(), opts);
    await buildTurnMessages(turnOne([a]), 'two', [], config(), opts);
    expect(reads).toBe(1);
  });

  it('considers the newest documents only, counting the older ones in the summary and the note', async () => {
    const rows: StoredMessage[] = [];
    for (let i = 0; i <= MAX_EARLIER_DOCUMENTS; i++) rows.push(...turnOne([upload(`n-${i}.txt`, `note ${i}`, 'text/plain')], `note ${i}`));
    const { messages, report: r } = await buildTurnMessages(rows, 'which notes?', [], config(), { roots: [root], sessionId: 'c72b' });
    expect(r.documents).toHaveLength(MAX_EARLIER_DOCUMENTS);
    expect(r.documents[0]!.name).toBe(`n-${MAX_EARLIER_DOCUMENTS}.txt`);
    expect(r.summary).toBe(`The agent has ${MAX_EARLIER_DOCUMENTS} of ${MAX_EARLIER_DOCUMENTS + 1} documents whole`);
    expect(textOf(messages.at(-1)!)).toContain(`[1 older document(s) of this conversation are not sent in this turn (only the ${MAX_EARLIER_DOCUMENTS} newest are considered)`);
  });

  it("sends a long document as text parts the Hermes gateway does not cut (each at most 60,000 characters), losing nothing", async () => {
    const long = Array.from({ length: 3_000 }, (_, i) => `line ${i} of the long log`).join('\n') + '\nTHE LAST LINE';
    const a = upload('long.log', long, 'text/plain');
    const { messages } = await buildTurnMessages(turnOne([a]), 'and the last line?', [], config(), { roots: [root], sessionId: 'c72b' });
    const parts = messages[0]!.content as ContentPart[];
    for (const p of parts) if (p.type === 'text') expect(p.text.length).toBeLessThanOrEqual(MAX_TEXT_PART_CHARS);
    expect(parts.length).toBeGreaterThan(2);
    expect(parts.map((p) => (p.type === 'text' ? p.text : '')).join('')).toContain(long);
  });
});
