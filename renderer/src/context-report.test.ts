// What the chips and the header line say of the last turn's report (issue 36), word for word: which report is
// the last turn's, which document a chip stands for, and every state, the workspace and Hermes' history in words.
// The DOM they are drawn into is checked in Chromium: e2e/context-report.spec.ts.
import { describe, expect, it } from 'vitest';
import type { ContextReport, Message, Session } from './api.js';
import { initialTurn } from './chat-state.js';
import {
  chipContextLabel,
  chipContextText,
  documentFor,
  headerModel,
  HISTORY_LINE,
  lastReport,
  readReport,
  stateWords,
  storedReport,
  workspaceLine,
} from './context-report.js';

const report = (summary: string, documents: ContextReport['documents'], extra: Partial<ContextReport> = {}): ContextReport => ({ documents, summary, via: 'sent', ...extra });

const older = report('The agent has 1 of 1 documents whole', [{ name: 'report.pdf', origin: 'attachment', state: 'whole' }]);
const newer = report('The agent has 1 of 3 documents whole', [
  { name: 'notes.txt', origin: 'attachment', state: 'whole' },
  { name: 'report.pdf', origin: 'attachment', state: 'passages', where: 'pages 2–3' },
  { name: 'scan.png', origin: 'arrival', state: 'not_sent', reason: 'budget' },
]);

const session = (messages: Message[]): Session => ({ session_id: 'abcdefabcdef', title: 't', workspace: '/w', profile: 'default', created_at: 'c', updated_at: 'u', messages, attachments: [] }) as Session;

describe('the last turn’s report', () => {
  const rows: Message[] = [
    { role: 'user', content: 'first', context: older },
    { role: 'assistant', content: 'a' },
    { role: 'user', content: 'second', context: newer },
    { role: 'assistant', content: 'b' },
    // A message kept without a turn (no agent), or a row of an older Satchel: no report of its own.
    { role: 'user', content: 'a note' },
  ];

  it('is the newest user row that carries one; none before any turn reported', () => {
    expect(storedReport(rows)).toEqual(newer);
    expect(storedReport(rows.slice(0, 2))).toEqual(older);
    expect(storedReport([{ role: 'user', content: 'x' }])).toBeNull();
  });

  it('is the running turn’s frame once it came, for the session on screen only', () => {
    const live = report('The agent has 2 of 3 documents whole', newer.documents.map((d) => ({ ...d, state: 'whole' as const })));
    const turn = { ...initialTurn('s:1', 'abcdefabcdef'), context: live };
    expect(lastReport({ session: session(rows), turn })).toBe(live);
    // Before its frame: the stored rows' report.
    expect(lastReport({ session: session(rows), turn: initialTurn('s:1', 'abcdefabcdef') })).toEqual(newer);
    // Another session's turn says nothing of this one.
    expect(lastReport({ session: session(rows), turn: { ...turn, sessionId: 'ffffffffffff' } })).toEqual(newer);
    expect(lastReport({ session: null, turn })).toBeNull();
  });

  it('reads a malformed report as none, and drops documents not of its shape', () => {
    expect(readReport(null)).toBeNull();
    expect(readReport({ summary: 'x' })).toBeNull();
    expect(readReport([])).toBeNull();
    expect(readReport({ documents: [{ name: 'a.txt', origin: 'attachment', state: 'whole' }, { name: '', origin: 'attachment', state: 'whole' }, { name: 'b', origin: 'mail', state: 'whole' }, { name: 'c', origin: 'workspace', state: 'gone' }, 7], via: 'other', workspace: { name: 'proj', listed: -1, total: 'x', changed: 2.7 } })).toEqual({
      documents: [{ name: 'a.txt', origin: 'attachment', state: 'whole' }],
      summary: '',
      via: 'sent',
      workspace: { name: 'proj', listed: 0, total: 0, changed: 2 },
    });
  });
});

describe('a chip’s line', () => {
  it('finds the chip’s document by name and origin', () => {
    expect(documentFor(newer, ['report.pdf'], 'attachment')).toEqual({ name: 'report.pdf', origin: 'attachment', state: 'passages', where: 'pages 2–3' });
    // The same name from another origin is another document.
    expect(documentFor(newer, ['scan.png'], 'attachment')).toBeUndefined();
    expect(documentFor(newer, ['scan.png'], 'arrival')?.state).toBe('not_sent');
    // An extracted archive's chip goes by its archive's name or its folder's.
    expect(documentFor(report('', [{ name: 'project', origin: 'attachment', state: 'whole' }]), ['project.zip', 'project'], 'attachment')?.name).toBe('project');
    // A document the last turn did not list: nothing new on its chip.
    expect(documentFor(newer, ['other.txt'], 'attachment')).toBeUndefined();
    expect(documentFor(null, ['report.pdf'], 'attachment')).toBeUndefined();
  });

  it('says each state in words', () => {
    expect(chipContextText({ name: 'a', origin: 'attachment', state: 'whole' })).toBe('Last turn: whole');
    expect(chipContextText({ name: 'a', origin: 'attachment', state: 'passages', where: 'pages 2–3' })).toBe('Last turn: passages: pages 2–3');
    expect(chipContextText({ name: 'a', origin: 'attachment', state: 'passages' })).toBe('Last turn: passages');
    expect(chipContextText({ name: 'a', origin: 'attachment', state: 'not_sent', reason: 'budget' })).toBe('Last turn: not sent (budget)');
    expect(chipContextText({ name: 'a', origin: 'attachment', state: 'unreadable', reason: 'its text could not be extracted' })).toBe('Last turn: not readable: its text could not be extracted');
    expect(stateWords({ name: 'a', origin: 'attachment', state: 'unreadable' })).toBe('not readable');
    expect(chipContextLabel({ name: 'a', origin: 'attachment', state: 'not_sent', reason: 'budget' })).toBe('What the agent had of it in the last turn: not sent (budget)');
  });
});

describe('the header line and its list', () => {
  it('shows the summary and every document with its state and where it came from', () => {
    expect(headerModel(newer)).toEqual({
      summary: 'The agent has 1 of 3 documents whole',
      items: [
        { name: 'notes.txt', origin: 'attached', state: 'whole', words: 'whole' },
        { name: 'report.pdf', origin: 'attached', state: 'passages', words: 'passages: pages 2–3' },
        { name: 'scan.png', origin: 'arrived', state: 'not_sent', words: 'not sent (budget)' },
      ],
      history: null,
      workspace: null,
    });
  });

  it('is not shown before a turn reported, nor for a conversation without documents', () => {
    expect(headerModel(null)).toBeNull();
    expect(headerModel(report('The agent has 0 of 0 documents whole', []))).toBeNull();
  });

  it('says Hermes keeps the earlier documents, and what the agent was told of the workspace', () => {
    const model = headerModel(report('The agent has 1 of 2 documents whole', older.documents, { via: 'hermes_history', workspace: { name: 'proj', listed: 12, total: 12, changed: 2 } }));
    expect(model?.history).toBe(HISTORY_LINE);
    expect(HISTORY_LINE).toBe('Earlier documents are in the agent’s own history: it keeps them as their own turn sent them.');
    expect(model?.workspace).toBe('Workspace “proj”: 12 files listed, 2 changed files read');
    // A workspace alone (no attachment yet) is worth the line too.
    expect(headerModel(report('The agent has 0 of 0 documents whole', [], { workspace: { name: 'p', listed: 0, total: 0, changed: 0 } }))?.workspace).toBe('Workspace “p”: 0 files listed');
  });

  it('words the workspace line in the singular, and a cut listing of how many', () => {
    expect(workspaceLine({ name: 'proj', listed: 1, total: 1, changed: 1 })).toBe('Workspace “proj”: 1 file listed, 1 changed file read');
    expect(workspaceLine({ name: 'big', listed: 500, total: 12000, changed: 0 })).toBe('Workspace “big”: 500 of 12,000 files listed');
  });

  it('counts the documents itself when a report carries no summary', () => {
    expect(headerModel(report('', newer.documents))?.summary).toBe('The agent has 1 of 3 documents whole');
  });
});
