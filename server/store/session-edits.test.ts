// What each store operation changes in a session (session-edits.ts), on plain sessions with no database: the
// checks made before anything is queued, and the change itself.
import { describe, expect, it } from 'vitest';
import { capRefusal, MAX_ATTACHMENTS_PER_SESSION, MAX_MESSAGES_PER_SESSION } from './caps.js';
import type { Message } from './messages.js';
import { attachmentEdit, conversationEdit, flagsEdit, markDeletedEdit, messageEdit, renameEdit, restoreEdit, versionEdit } from './session-edits.js';
import { MAX_MESSAGE_CHARS, MAX_SYSTEM_PROMPT_CHARS, SYSTEM_PROMPT_TOO_LONG, type Attachment, type Session } from './session-shapes.js';
import { NO_SUCH_MESSAGE, SESSION_BUSY } from './versions.js';

function session(extra: Partial<Session> = {}): Session {
  return { session_id: 'a'.repeat(12), title: 't', workspace: '/w', profile: 'default', created_at: '', updated_at: '', messages: [], attachments: [], ...extra };
}

const user = (content: string): Message => ({ role: 'user', content, timestamp: 0 }) as Message;
const attachment = (name: string): Attachment => ({ filename: name, path: name, size: 1, mime: 'text/plain', is_image: false }) as Attachment;

describe('session edits', () => {
  it('rename cleans the title and refuses an empty one before anything is queued', () => {
    const s = session();
    renameEdit(`  a\u0007b\n${'x'.repeat(300)}`)(s);
    expect(s.title).toBe(`a b ${'x'.repeat(196)}`);
    expect(() => renameEdit(' \u0000\t ')).toThrow('Title must not be empty');
  });

  it('flags set, take back, or leave each flag; deletion is refused while a turn runs and restore takes it back', () => {
    const s = session({ archived: true });
    flagsEdit({ pinned: true })(s);
    expect([s.pinned, s.archived]).toEqual([true, true]);
    flagsEdit({ archived: false })(s);
    expect('archived' in s).toBe(false);
    markDeletedEdit(new Date('2026-01-02T03:04:05Z'))(s);
    expect(s.deleted_at).toBe('2026-01-02T03:04:05.000Z');
    restoreEdit(s);
    expect('deleted_at' in s).toBe(false);
    expect(() => markDeletedEdit(new Date())(session({ active_stream_id: 'x' }))).toThrow(SESSION_BUSY);
  });

  it('conversation settings: blank removes, a new connection drops the model unless one is given, too long is refused', () => {
    const s = session({ model: 'old', connection: 'a', system_prompt: 'be brief' });
    conversationEdit({ connection: 'b' })(s);
    expect([s.model, s.connection, s.system_prompt]).toEqual([undefined, 'b', 'be brief']);
    conversationEdit({ connection: null, model: ' m1\u0001 ', system_prompt: '  ', keep_out_of_mcp: true })(s);
    expect([s.model, 'connection' in s, 'system_prompt' in s, s.keep_out_of_mcp]).toEqual(['m1', false, false, true]);
    conversationEdit({ keep_out_of_mcp: false })(s);
    expect('keep_out_of_mcp' in s).toBe(false);
    expect(() => conversationEdit({ system_prompt: 'p'.repeat(MAX_SYSTEM_PROMPT_CHARS + 1) })).toThrow(SYSTEM_PROMPT_TOO_LONG);
    expect(() => conversationEdit({ model: 'm'.repeat(201) })).toThrow('Model name too long (max 200 characters)');
  });

  it('a message is stored, or queued while a turn runs, within its length and the messages cap', () => {
    const said: boolean[] = [];
    const s = session();
    messageEdit('hi', [], (w) => said.push(w))(s);
    const running = session({ active_stream_id: 'turn' });
    messageEdit('later', [], (w) => said.push(w))(running);
    expect(said).toEqual([false, true]);
    expect(s.messages.map((m) => [m.role, m.content])).toEqual([['user', 'hi']]);
    expect(running.messages).toEqual([]);
    expect(running.queued_messages?.map((m) => m.content)).toEqual(['later']);
    expect(() => messageEdit('x'.repeat(MAX_MESSAGE_CHARS + 1), [], () => {})).toThrow(`Message too long (max ${MAX_MESSAGE_CHARS} characters)`);
    const full = session({ messages: Array.from({ length: MAX_MESSAGES_PER_SESSION }, () => user('m')) });
    expect(() => messageEdit('one more', [], () => {})(full)).toThrow(capRefusal('messages'));
  });

  it('a version replaces the conversation from a user row on, and only from one', () => {
    const s = session({ messages: [user('first'), { role: 'assistant', content: 'answer', timestamp: 0 } as Message] });
    expect(() => versionEdit(1, 'x', [])(s)).toThrow(NO_SUCH_MESSAGE);
    versionEdit(0, 'edited', [])(s);
    expect(s.messages.map((m) => m.content)).toEqual(['edited']);
  });

  it('an attachment is recorded with the change beside it, within the attachments cap', () => {
    const s = session();
    attachmentEdit(attachment('a.txt'), { change: (x) => x.messages.push(user('arrived')) })(s);
    expect([s.attachments.map((a) => a.filename), s.messages.map((m) => m.content)]).toEqual([['a.txt'], ['arrived']]);
    const full = session({ attachments: Array.from({ length: MAX_ATTACHMENTS_PER_SESSION }, (_, i) => attachment(`f${i}`)) });
    expect(() => attachmentEdit(attachment('b.txt'), {})(full)).toThrow(capRefusal('attachments'));
  });
});
