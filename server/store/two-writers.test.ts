// Two writers on one database (issue 33, finding 1): two SessionStores on one state folder, as two servers were
// before the state folder's lock (process/state-lock.ts). Each keeps its own copy of a session; a write from a
// stale copy must be refused (409, nothing written), never replace rows the other stored, never end in a
// SQLITE_CONSTRAINT; and nothing either acknowledged is lost.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { HttpError } from '../core/errors.js';
import { SESSION_CHANGED_ELSEWHERE } from './db/session-rows.js';
import type { SessionStore, Session } from './sessions.js';
import { openStore } from '../testing/fresh-store.js';

let dir: string;
const stores: SessionStore[] = [];
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-two-writers-'));
});
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
  await fs.rm(dir, { recursive: true, force: true });
});

async function open(): Promise<SessionStore> {
  const store = await openStore(dir);
  stores.push(store);
  return store;
}

/** What a third reader finds stored: the messages' texts. */
async function storedTexts(id: string): Promise<string[]> {
  const reader = await open();
  return (await reader.get(id))!.messages.map((m) => m.content);
}

/** The refusal a stale write gets: its status and text (anything else is returned as it is). */
async function refusal(write: Promise<unknown>): Promise<unknown> {
  return write.then(
    () => 'accepted',
    (err: unknown) => (err instanceof HttpError ? { status: err.status, error: err.message } : err),
  );
}

it("a stale copy's edit is refused and the other writer's acknowledged messages stay, then the edit goes through on what is stored", async () => {
  const a = await open();
  const s = await a.create({ workspace: '/w', profile: 'default' });
  const b = await open();
  await b.addMessage(s.session_id, 'first question', []);
  // B holds the conversation whole; A stores four messages after it, each acknowledged.
  expect((await b.get(s.session_id))!.messages).toHaveLength(1);
  const a2 = await open();
  for (const text of ['second', 'third', 'fourth', 'fifth']) await a2.addMessage(s.session_id, text, []);
  expect(await storedTexts(s.session_id)).toEqual(['first question', 'second', 'third', 'fourth', 'fifth']);

  // B edits message 0 from its stale copy: refused, nothing written.
  expect(await refusal(b.addVersion(s.session_id, 0, 'edited first question', []))).toEqual({ status: 409, error: SESSION_CHANGED_ELSEWHERE });
  expect(await storedTexts(s.session_id)).toEqual(['first question', 'second', 'third', 'fourth', 'fifth']);

  // Asked again, B works on what is stored: the edit is a new version, and A's messages are kept in the one replaced.
  const edited = await b.addVersion(s.session_id, 0, 'edited first question', []);
  expect(edited.messages.map((m) => m.content)).toEqual(['edited first question']);
  const versions = (edited.messages[0] as { _versions?: { rows: { content: string }[] }[] })._versions;
  expect(JSON.stringify(versions)).toContain('fifth');
});

it('interleaved appends from two writers: the stale one gets a 409 (never SQLITE_CONSTRAINT), and every acknowledged message is stored', async () => {
  const a = await open();
  const s = await a.create({ workspace: '/w', profile: 'default' });
  const b = await open();
  await b.get(s.session_id);
  const acknowledged: string[] = [];
  const outcomes: unknown[] = [];
  for (let i = 0; i < 10; i++) {
    for (const [name, store] of [['a', a], ['b', b]] as const) {
      const text = `${name}${i}`;
      const outcome = await refusal(store.addMessage(s.session_id, text, []));
      outcomes.push(outcome);
      if (outcome === 'accepted') acknowledged.push(text);
    }
  }
  for (const outcome of outcomes) expect([ 'accepted', { status: 409, error: SESSION_CHANGED_ELSEWHERE }]).toContainEqual(outcome);
  // Each refusal makes the refused store read again, so the writers take turns rather than one starving.
  expect(acknowledged.length).toBeGreaterThanOrEqual(10);
  expect(await storedTexts(s.session_id)).toEqual(acknowledged);
});

it('two writers at once on the same conversation: whatever interleaving, the stored rows are exactly the acknowledged ones', async () => {
  const a = await open();
  const s = await a.create({ workspace: '/w', profile: 'default' });
  const b = await open();
  await b.get(s.session_id);
  const acknowledged = new Set<string>();
  const failures: unknown[] = [];
  await Promise.all(
    [a, b].map(async (store, n) => {
      for (let i = 0; i < 20; i++) {
        const text = `${n ? 'b' : 'a'}${i}`;
        const outcome = await refusal(store.addMessage(s.session_id, text, []));
        if (outcome === 'accepted') acknowledged.add(text);
        else if (!(typeof outcome === 'object' && (outcome as { status?: number }).status === 409)) failures.push(outcome);
      }
    }),
  );
  expect(failures).toEqual([]);
  const stored = await storedTexts(s.session_id);
  expect(new Set(stored)).toEqual(acknowledged);
  expect(stored).toHaveLength(acknowledged.size);
});

it('a session the other writer created under the same id is never overwritten by an insert', async () => {
  const a = await open();
  const b = await open();
  const s = await a.create({ workspace: '/w', profile: 'default' });
  await a.addMessage(s.session_id, 'kept', []);
  // B has not seen it (its list was read before), and stores an import under that id.
  const imported: Session = { ...s, title: 'Imported', messages: [{ role: 'user', content: 'imported', timestamp: 1 }], attachments: [] };
  expect(await refusal(b.insert(imported))).toEqual({ status: 409, error: SESSION_CHANGED_ELSEWHERE });
  expect(await storedTexts(s.session_id)).toEqual(['kept']);
});
