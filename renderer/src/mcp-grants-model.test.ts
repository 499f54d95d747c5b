import { describe, expect, it } from 'vitest';
import {
  choiceFromGrants,
  EMPTY_CHOICE,
  endOfDay,
  EXPIRY_PAST,
  grantsFromChoice,
  grantsSummary,
  keyStatus,
  ledgerAgent,
  ledgerWhat,
  localDay,
  WORKSPACE_NOT_ABSOLUTE,
} from './mcp-grants-model.js';

const NOW = new Date(2026, 10, 29, 12, 0).getTime();
const titles: Record<string, string> = { a1: 'Trip notes', b2: 'Lease' };
const titleOf = (id: string) => titles[id];

describe('grants editor: choice → grants', () => {
  it('sends "all" alone, whatever else is ticked', () => {
    expect(grantsFromChoice({ ...EMPTY_CHOICE, all: true, conversations: ['a1'], inbox: true }, NOW)).toEqual({ ok: true, grants: [{ kind: 'all' }] });
  });

  it('sends each chosen conversation, the Inbox and each workspace once, with one expiry at the end of the chosen day', () => {
    const result = grantsFromChoice({ all: false, conversations: ['a1', 'b2', 'a1'], folders: [], inbox: true, workspaces: [' /home/p/proj ', '', '/home/p/proj'], expires: '2026-12-03' }, NOW);
    const until = new Date(2026, 11, 4).toISOString();
    expect(result).toEqual({
      ok: true,
      grants: [
        { kind: 'conversation', session_id: 'a1', expires_at: until },
        { kind: 'conversation', session_id: 'b2', expires_at: until },
        { kind: 'inbox', expires_at: until },
        { kind: 'workspace', path: '/home/p/proj', expires_at: until },
      ],
    });
  });

  it('sends each chosen folder once as a folder grant, beside the chosen conversations, with the same expiry', () => {
    const result = grantsFromChoice({ ...EMPTY_CHOICE, conversations: ['a1'], folders: ['0123456789ab', 'ba9876543210', '0123456789ab'], expires: '2026-12-03' }, NOW);
    const until = new Date(2026, 11, 4).toISOString();
    expect(result).toEqual({
      ok: true,
      grants: [
        { kind: 'conversation', session_id: 'a1', expires_at: until },
        { kind: 'folder', folder_id: '0123456789ab', expires_at: until },
        { kind: 'folder', folder_id: 'ba9876543210', expires_at: until },
      ],
    });
    // "All conversations" covers every folder: sent alone.
    expect(grantsFromChoice({ ...EMPTY_CHOICE, all: true, folders: ['0123456789ab'] }, NOW)).toEqual({ ok: true, grants: [{ kind: 'all' }] });
    expect(choiceFromGrants([{ kind: 'folder', folder_id: '0123456789ab' }, { kind: 'conversation', session_id: 'a1' }])).toEqual({ ...EMPTY_CHOICE, conversations: ['a1'], folders: ['0123456789ab'] });
  });

  it('nothing chosen is an empty list (the agent sees nothing)', () => {
    expect(grantsFromChoice(EMPTY_CHOICE, NOW)).toEqual({ ok: true, grants: [] });
  });

  it('refuses a day already over and a relative workspace path', () => {
    expect(grantsFromChoice({ ...EMPTY_CHOICE, all: true, expires: '2026-11-28' }, NOW)).toEqual({ ok: false, error: EXPIRY_PAST });
    // Today still counts: the grant lasts until midnight.
    expect(grantsFromChoice({ ...EMPTY_CHOICE, all: true, expires: '2026-11-29' }, NOW).ok).toBe(true);
    expect(grantsFromChoice({ ...EMPTY_CHOICE, workspaces: ['proj'] }, NOW)).toEqual({ ok: false, error: WORKSPACE_NOT_ABSOLUTE });
  });

  it('reads back what it sent (the day shown is the day the grant ends)', () => {
    const choice = { all: false, conversations: ['a1'], folders: ['0123456789ab'], inbox: true, workspaces: ['/w'], expires: '2026-12-03' };
    const sent = grantsFromChoice(choice, NOW);
    if (!sent.ok) throw new Error(sent.error);
    expect(choiceFromGrants(sent.grants)).toEqual(choice);
    expect(endOfDay('2026-12-03')).toBe(new Date(2026, 11, 4).getTime());
    expect(localDay(new Date(2026, 11, 4).getTime() - 1)).toBe('2026-12-03');
  });
});

describe('the words the panel uses', () => {
  it('sums up a key\'s grants', () => {
    expect(grantsSummary([{ kind: 'all', expires_at: null }], titleOf, NOW)).toBe('All conversations');
    expect(grantsSummary([], titleOf, NOW)).toBe('Nothing yet');
    expect(grantsSummary([{ kind: 'conversation', session_id: 'a1', expires_at: null }], titleOf, NOW)).toBe('“Trip notes”');
    expect(
      grantsSummary(
        [
          { kind: 'conversation', session_id: 'a1', expires_at: null },
          { kind: 'conversation', session_id: 'b2', expires_at: null },
          { kind: 'inbox', expires_at: null },
          { kind: 'workspace', path: '/w', expires_at: null },
        ],
        titleOf,
        NOW,
      ),
    ).toBe('2 conversations, the Inbox, the workspace /w');
    expect(grantsSummary([{ kind: 'inbox', expires_at: new Date(2026, 10, 20).toISOString() }], titleOf, NOW)).toBe('Nothing: its access has ended');
    expect(grantsSummary([{ kind: 'inbox', expires_at: new Date(2026, 11, 4).toISOString() }], titleOf, NOW)).toMatch(/^the Inbox · until .*3/);
  });

  it('names a granted folder in words, a deleted one as gone', () => {
    const folderOf = (id: string) => ({ '0123456789ab': 'Travel', ba9876543210: 'Work' })[id];
    const travel = { kind: 'folder' as const, folder_id: '0123456789ab', expires_at: null };
    expect(grantsSummary([travel], titleOf, NOW, folderOf)).toBe('the folder “Travel”');
    expect(grantsSummary([{ kind: 'conversation', session_id: 'b2' }, travel, { kind: 'inbox' }], titleOf, NOW, folderOf)).toBe('“Lease”, the folder “Travel”, the Inbox');
    expect(grantsSummary([travel, { kind: 'folder', folder_id: 'ba9876543210' }], titleOf, NOW, folderOf)).toBe('the folders “Travel”, “Work”');
    expect(grantsSummary([{ kind: 'folder', folder_id: 'cccccccccccc' }], titleOf, NOW, folderOf)).toBe('the folder “a folder that is gone”');
    expect(grantsSummary([{ ...travel, expires_at: new Date(2026, 11, 4).toISOString() }], titleOf, NOW, folderOf)).toMatch(/^the folder “Travel” · until .*3/);
  });

  it('names a key\'s state; the shared token is "retired", not revoked', () => {
    expect(keyStatus({ id: 'k', paused: false, revoked: false })).toBe('Active');
    expect(keyStatus({ id: 'k', paused: true, revoked: false })).toBe('Paused');
    expect(keyStatus({ id: 'k', paused: false, revoked: true })).toBe('Revoked');
    expect(keyStatus({ id: 'unnamed', paused: false, revoked: true })).toBe('Retired');
  });

  it('says what a ledger row read, by whom', () => {
    const row = { op: 'read_session', kind: 'conversation', name: '', range: 'messages 0-199', query: '', session_id: 'a1', outcome: 'ok' as const };
    expect(ledgerWhat(row, titleOf)).toBe('read “Trip notes” (messages 0-199)');
    expect(ledgerWhat({ ...row, op: 'read_attachment', kind: 'attachment', name: 'lease.pdf', range: '' }, titleOf)).toBe('read lease.pdf in “Trip notes”');
    expect(ledgerWhat({ ...row, op: 'search', kind: 'search', query: 'heron', range: '', session_id: null }, titleOf)).toBe('searched “heron”');
    expect(ledgerWhat({ ...row, op: 'list_sessions', kind: 'list', range: '', session_id: null }, titleOf)).toBe('listed conversations');
    // list_sessions by folder: the folder asked, by its name where the id is known, else as the agent wrote it.
    const folderOf = (id: string) => ({ '0123456789ab': 'Travel' })[id];
    expect(ledgerWhat({ ...row, op: 'list_sessions', kind: 'list', name: '0123456789ab', range: '', session_id: null }, titleOf, folderOf)).toBe('listed conversations in the folder “Travel”');
    expect(ledgerWhat({ ...row, op: 'list_sessions', kind: 'list', name: 'travel', range: '', session_id: null, outcome: 'not_found' }, titleOf, folderOf)).toBe('listed conversations in the folder “travel”: not found');
    expect(ledgerWhat({ ...row, session_id: 'zz', outcome: 'not_found' }, titleOf)).toBe('read “zz” (messages 0-199): not found');
    expect(ledgerAgent('launch', [])).toBe('Satchel itself');
    expect(ledgerAgent('k1', [{ id: 'k1', name: 'Codex at work' }])).toBe('Codex at work');
  });
});
