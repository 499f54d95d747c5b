// The quick-capture page's state: what a server's view restores, when Send may go and what it sends, what the
// draft keeps, and where dictation lands.
import { describe, expect, it } from 'vitest';
import type { Attachment, CaptureView } from './api.js';
import { afterAsk, afterSend, draftBody, EMPTY_CAPTURE, insertDictation, sendBlocker, sendBody, stateFromServer, type CaptureState } from './capture-state.js';
import type { Chip } from './store.js';

const upload = (name: string): Attachment => ({ filename: name, path: `/state/attachments/abc123abc123/${name}`, size: 5, mime: 'image/png', is_image: true });
const view = (over: Partial<CaptureView['draft']> = {}, rest: Partial<CaptureView> = {}): CaptureView => ({
  current: { session_id: 'cafe00cafe00', title: 'Trip to Lisbon' },
  inbox: true,
  draft: { text: '', destination: 'current', session_id: null, attachments: [], ...over },
  ...rest,
});
const picked = (id: number, status: Chip['status']): Chip => ({ id, name: `f${id}.txt`, size: 1, origin: { kind: 'picked' }, status, loaded: 0 });

describe('stateFromServer', () => {
  it('restores the kept text, destination and staged uploads as stored chips (an image shows its stored bytes)', () => {
    let n = 0;
    const s = stateFromServer(view({ text: 'half a thought', destination: 'inbox', session_id: 'abc123abc123', attachments: [upload('shot.png')] }), () => ++n);
    expect(s).toMatchObject({ text: 'half a thought', destination: 'inbox', staging: 'abc123abc123', inbox: true, current: { title: 'Trip to Lisbon' } });
    expect(s.chips.map((c) => [c.id, c.name, c.status, c.origin.kind])).toEqual([[1, 'shot.png', 'done', 'restored']]);
    expect(s.chips[0]!.thumbUrl).toContain('/api/attachment/raw?');
  });
});

describe('sendBlocker', () => {
  const base: CaptureState = { ...EMPTY_CAPTURE, current: { session_id: 'cafe00cafe00', title: 'T' }, inbox: true };
  it('says why Send waits, in the order a person would fix it', () => {
    expect(sendBlocker(base)).toBe('Type something or add a file');
    expect(sendBlocker({ ...base, text: 'x', chips: [picked(1, 'uploading')] })).toBe('Waiting for uploads to finish');
    expect(sendBlocker({ ...base, text: 'x', sending: true })).toBe('Sending…');
    expect(sendBlocker({ ...base, text: 'x', current: null })).toBe('There is no conversation yet: choose Inbox or Ask the agent');
    expect(sendBlocker({ ...base, text: 'x', destination: 'inbox', inbox: false })).toBe('Inbox is not available');
    expect(sendBlocker({ ...base, text: 'x', destination: 'ask', current: null })).toBeNull();
    // A failed upload is not waited for and not sent.
    expect(sendBlocker({ ...base, chips: [picked(1, 'error')] })).toBe('Type something or add a file');
  });
});

describe('sendBody and draftBody', () => {
  const staged = stateFromServer(view({ session_id: 'abc123abc123', attachments: [upload('a.png'), upload('b.png')] }), (() => {
    let n = 0;
    return () => ++n;
  })());
  it('sends the current conversation, the staging one and the stored paths only', () => {
    const s = { ...staged, text: 'look', chips: [...staged.chips, picked(9, 'error')] };
    expect(sendBody(s)).toEqual({
      destination: 'current',
      session_id: 'cafe00cafe00',
      staging_session_id: 'abc123abc123',
      text: 'look',
      attachments: ['/state/attachments/abc123abc123/a.png', '/state/attachments/abc123abc123/b.png'],
    });
    expect(sendBody({ ...s, destination: 'ask', chips: [] })).toEqual({ destination: 'ask', text: 'look', attachments: [] });
  });
  it('keeps the staging conversation in the draft only while it holds uploads', () => {
    expect(draftBody({ ...staged, text: 't', destination: 'inbox' })).toEqual({
      text: 't',
      destination: 'inbox',
      session_id: 'abc123abc123',
      attachments: ['/state/attachments/abc123abc123/a.png', '/state/attachments/abc123abc123/b.png'],
    });
    expect(draftBody({ ...staged, chips: [] })).toEqual({ text: '', destination: 'current', session_id: null, attachments: [] });
  });
  it('after a send the page is empty, on the same destination, and says where it went', () => {
    const after = afterSend({ ...staged, text: 'x', sending: true });
    expect(after).toMatchObject({ text: '', chips: [], staging: null, sending: false, destination: 'current', notice: { kind: 'info', text: 'Sent to “Trip to Lisbon”.' } });
    expect(afterSend({ ...staged, destination: 'inbox' }).notice?.text).toBe('Sent to the Inbox.');
    expect(afterSend({ ...staged, destination: 'ask' }).notice?.text).toBe('Asked the agent: the reply appears in the Satchel window.');
  });
});

describe('insertDictation', () => {
  it('puts the transcript at the caret, a space apart from its neighbours', () => {
    expect(insertDictation('', 0, 'hello there')).toEqual({ text: 'hello there', caret: 11 });
    expect(insertDictation('Note:', 5, 'buy milk')).toEqual({ text: 'Note: buy milk', caret: 14 });
    expect(insertDictation('Note: tomorrow', 5, 'buy milk')).toEqual({ text: 'Note: buy milk tomorrow', caret: 14 });
    expect(insertDictation('a ', 2, 'b')).toEqual({ text: 'a b', caret: 3 });
  });
});

describe('Ask in the current conversation (issue 38)', () => {
  const base = { ...EMPTY_CAPTURE, text: 'Which train?', current: { session_id: 'aaaaaaaaaaaa', title: 'Trip' } };
  it('is a message there the agent answers; a new conversation otherwise, or with none current', () => {
    expect(sendBody({ ...base, destination: 'ask', askIn: 'current' })).toEqual({ destination: 'current', session_id: 'aaaaaaaaaaaa', text: 'Which train?', attachments: [], reply: true });
    expect(sendBody({ ...base, destination: 'ask', askIn: 'new' })).toEqual({ destination: 'ask', text: 'Which train?', attachments: [] });
    expect(sendBody({ ...base, current: null, destination: 'ask', askIn: 'current' })).toEqual({ destination: 'ask', text: 'Which train?', attachments: [] });
  });
  it('says where it asked, and the conversation asked is the current one after', () => {
    expect(afterSend({ ...base, destination: 'ask', askIn: 'current' }).notice?.text).toBe('Asked the agent in “Trip”: the reply appears in the Satchel window.');
    expect(afterSend({ ...base, destination: 'ask', askIn: 'new' }).notice?.text).toBe('Asked the agent: the reply appears in the Satchel window.');
    expect(afterAsk(base, { session_id: 'bbbbbbbbbbbb', title: 'Untitled' }).current).toEqual({ session_id: 'bbbbbbbbbbbb', title: 'Untitled' });
  });
});
