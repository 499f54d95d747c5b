// Recovery of a turn a crash interrupted, with the text it had shown kept (streamed-batches.ts): the partial reply
// sits between the question and the Interrupted marker, a Regenerate's earlier version is kept on the question's
// row as before, only the interrupted stream's text is used, and nothing kept is left for a later start.
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { SessionStore } from '../store/sessions.js';
import { branch, versionSummary } from '../store/versions.js';
import { recoverInterruptedTurns } from './turns.js';
import { freshStore, removeStore } from '../testing/fresh-store.js';

let tmp: string;
let store: SessionStore;
beforeEach(async () => ({ dir: tmp, store } = await freshStore('satchel-recover-')));
afterEach(() => removeStore({ dir: tmp, store }));

it('a Regenerate killed mid-reply: the question with both versions, the shown text as a partial reply, the marker', async () => {
  const s = await store.create({ workspace: tmp, profile: 'default' });
  await store.update(s.session_id, (x) => {
    x.messages.push({ role: 'user', content: 'q', timestamp: 1 }, { role: 'assistant', content: 'first answer', timestamp: 2 });
  });
  // What TurnManager.start writes for a Regenerate, then the batches a crash left behind (and another stream's).
  await store.update(s.session_id, (x) => {
    const { kept, fork } = branch(x.messages, 0);
    x.messages = kept;
    x._pending_versions = fork;
    x.active_stream_id = 'stream-2';
    x.pending_user_message = 'q';
    x.pending_attachments = [];
    x.pending_started_at = 3;
  });
  await store.appendStreamedText(s.session_id, 'stream-2', { content: 'second ', reasoning: 'thinking' });
  await store.appendStreamedText(s.session_id, 'stream-2', { content: 'answer, cut', reasoning: '' });
  await store.appendStreamedText(s.session_id, 'stream-1', { content: 'an older stream', reasoning: '' });

  expect(await recoverInterruptedTurns(store)).toBe(1);
  const rows = (await store.get(s.session_id))!.messages;
  expect(rows.map((m) => [m.role, m.content, m._partial ?? false, m.error_type ?? null])).toEqual([
    ['user', 'q', false, null],
    ['assistant', 'second answer, cut', true, null],
    ['assistant', expect.stringMatching(/^\*\*Interrupted:\*\*/), false, 'interrupted'],
  ]);
  expect(rows[1]!.reasoning).toBe('thinking');
  expect(versionSummary(rows[0]!)).toMatchObject({ index: 1, count: 2, edited: false });
  expect(await store.streamedText(s.session_id, 'stream-2')).toEqual({ content: '', reasoning: '' });
  expect(await store.streamedText(s.session_id, 'stream-1')).toEqual({ content: '', reasoning: '' });
  // A second start finds nothing more to recover.
  expect(await recoverInterruptedTurns(store)).toBe(0);
  expect((await store.get(s.session_id))!.messages).toHaveLength(3);
});
