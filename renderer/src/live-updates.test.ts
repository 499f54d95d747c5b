import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Session } from './api.js';
import type { EventHandlers, EventsOptions } from './events.js';
import { behind, EVENT_RELOAD_DEBOUNCE_MS, foldUpdatedAt, followServer, type LiveTargets } from './live-updates.js';

const session = (id: string, updatedAt: string): Session =>
  ({ session_id: id, title: id, workspace: '/w', profile: 'default', created_at: updatedAt, updated_at: updatedAt, messages: [], attachments: [] }) as Session;

/** The page's targets as calls recorded, with `shown` on screen; the event stream a stand-in whose handlers the test calls. */
function harness(shown: Session | null) {
  const calls: string[] = [];
  const targets: LiveTargets = {
    current: () => shown,
    reloadList: async () => void calls.push('list'),
    open: async (id) => void calls.push(`open ${id}`),
    reloadAll: async (id) => void calls.push(`all ${id}`),
    applyTitle: (id, title) => void calls.push(`title ${id} ${title}`),
    workspaceChanged: () => void calls.push('workspace'),
    receiptsChanged: () => void calls.push('receipts'),
    mcpRead: () => void calls.push('mcp timeline'),
    status: (s) => void calls.push(`status ${s}`),
  };
  let handlers: EventHandlers = {};
  let options: EventsOptions = {};
  followServer(targets, (h, o = {}) => {
    handlers = h;
    options = o;
    return { close: () => undefined };
  });
  const settle = () => vi.advanceTimersByTimeAsync(EVENT_RELOAD_DEBOUNCE_MS);
  return { calls, handlers: () => handlers, options: () => options, settle };
}

describe('followServer: what each server event reads again', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it('a rename lands at once; a burst of changes reads the list once', async () => {
    const { calls, handlers, settle } = harness(session('s1', 't1'));
    handlers().session_renamed?.({ session_id: 's2', title: 'Plans' });
    handlers().session_created?.({ session: { ...session('s3', 't1'), message_count: 0 } });
    handlers().session_restored?.({ session: { ...session('s4', 't1'), message_count: 0 } });
    handlers().session_updated?.({ session_id: 's2' });
    expect(calls).toEqual(['title s2 Plans']);
    await settle();
    expect(calls).toEqual(['title s2 Plans', 'list']);
  });

  it('the conversation on screen is read again only when an update left it at another time than it shows', async () => {
    const same = harness(session('s1', 't1'));
    same.handlers().session_updated?.({ session_id: 's1', updated_at: 't1' });
    await same.settle();
    expect(same.calls).toEqual(['list']);

    const newer = harness(session('s1', 't1'));
    newer.handlers().session_updated?.({ session_id: 's1', updated_at: 't1' });
    newer.handlers().session_updated?.({ session_id: 's1', updated_at: 't2' });
    await newer.settle();
    expect(newer.calls).toEqual(['list', 'open s1']);

    // One change that named no time: only reading it again tells.
    const unnamed = harness(session('s1', 't1'));
    unnamed.handlers().session_updated?.({ session_id: 's1' });
    unnamed.handlers().session_updated?.({ session_id: 's1', updated_at: 't1' });
    await unnamed.settle();
    expect(unnamed.calls).toEqual(['list', 'open s1']);
  });

  it("another conversation's attachments, workspace and receipts leave the one on screen alone", async () => {
    const { calls, handlers, settle } = harness(session('s1', 't1'));
    handlers().attachment_added?.({ session_id: 's2', file_count: 3, dest: '/a/x' });
    handlers().workspace_changed?.({ session_id: 's2', path: 'notes.md' });
    handlers().mcp_read?.({ session_id: 's2', receipt: { client: 'c', kind: 'conversation', name: '', first_at: 't', last_at: 't', count: 1 } });
    handlers().session_deleted?.({ session_id: 's2' });
    await settle();
    expect(calls).toEqual(['list']);
    calls.length = 0;
    handlers().attachment_added?.({ session_id: 's1', file_count: 3, dest: '/a/x' });
    handlers().workspace_changed?.({ session_id: 's1', path: 'notes.md' });
    handlers().mcp_read?.({ session_id: 's1', receipt: { client: 'c', kind: 'conversation', name: '', first_at: 't', last_at: 't', count: 1 } });
    handlers().session_deleted?.({ session_id: 's1' });
    await settle();
    expect(calls).toEqual(['workspace', 'receipts', 'all null', 'open s1', 'list']);
  });

  it("every recorded MCP call, whether or not it names a conversation, reaches the MCP panel's timeline once per burst", async () => {
    const { calls, handlers, settle } = harness(null);
    // A listing, a search across conversations and a refusal: none names a conversation on screen.
    for (const key of ['k1', 'k1', 'k2']) handlers().mcp_ledger_added?.({ key_id: key });
    expect(calls).toEqual([]);
    await settle();
    expect(calls).toEqual(['mcp timeline']);
    handlers().mcp_ledger_added?.({ key_id: 'k1' });
    await settle();
    expect(calls).toEqual(['mcp timeline', 'mcp timeline']);
    // A conversation's receipt alone does not (its read's ledger row says so).
    handlers().mcp_read?.({ session_id: 's4', receipt: { client: 'c', kind: 'conversation', name: '', first_at: 't', last_at: 't', count: 1 } });
    await settle();
    expect(calls).toEqual(['mcp timeline', 'mcp timeline']);
  });

  it('quick capture asking the agent opens that conversation; sending elsewhere reads the one on screen if it was that', async () => {
    const { calls, handlers, settle } = harness(session('s1', 't1'));
    handlers().capture_sent?.({ session_id: 's9', destination: 'ask', stream_id: 'st' });
    expect(calls).toEqual(['open s9']);
    handlers().capture_sent?.({ session_id: 's1', destination: 'inbox' });
    await settle();
    expect(calls).toEqual(['open s9', 'list', 'open s1']);
  });

  it('after a reconnect everything shown is read again; the status follows the stream', () => {
    const { calls, options } = harness(session('s1', 't1'));
    options().onStatus?.('reconnecting');
    options().onResync?.();
    expect(calls).toEqual(['status reconnecting', 'all s1', 'workspace', 'receipts']);
  });

  it('with no conversation on screen, no event opens one but quick capture asking', async () => {
    const { calls, handlers, settle } = harness(null);
    handlers().session_updated?.({ session_id: 's1' });
    handlers().session_deleted?.({ session_id: 's1' });
    handlers().attachment_added?.({ session_id: 's1', file_count: 1, dest: '/a' });
    await settle();
    expect(calls).toEqual(['list']);
  });
});

describe('foldUpdatedAt and behind', () => {
  it('keeps the newest time named, and forgets it for good once a change named none', () => {
    expect(foldUpdatedAt(undefined, 't1')).toBe('t1');
    expect(foldUpdatedAt('t1', 't2')).toBe('t2');
    expect(foldUpdatedAt('t1', undefined)).toBeNull();
    expect(foldUpdatedAt(null, 't3')).toBeNull();
    expect(behind('t1', session('s1', 't1'))).toBe(false);
    expect(behind('t2', session('s1', 't1'))).toBe(true);
    expect(behind(null, session('s1', 't1'))).toBe(true);
  });
});
