// GET /api/session over a real socket while its body is kept (projections/session-body.ts): every change shows on
// the next read, and a secret learnt after the body was made is masked on the next read.
import { afterEach, describe, expect, it } from 'vitest';
import { forgetSecrets, KNOWN_SECRET_MASK, rememberSecret } from '../redact/known.js';
import { testServerForFile } from '../testing/per-file-server.js';

const srv = testServerForFile();
afterEach(() => forgetSecrets());

type Row = { role: string; content: string; versions?: { index: number; count: number; edited: boolean } };
const read = async (id: string) => await (await srv.api(`/api/session?session_id=${id}`)).text();
const rows = async (id: string) => (JSON.parse(await read(id)) as { session: { messages: Row[] } }).session.messages;

describe('GET /api/session, kept between reads', () => {
  it('answers the same bytes again, gzipped when asked, and the answer of a change is what the next read gives', async () => {
    const id = await srv.newSession();
    for (const text of ['first question', 'second question', 'third question']) await srv.json('/api/session/message', { session_id: id, text: `${text}: ${'a long line of text '.repeat(20)}`, answer: 'summary' });
    for (const text of ['first question', 'second question', 'third question']) await srv.json('/api/session/message', { session_id: id, text, answer: 'summary' });
    const first = await read(id);
    expect(await read(id)).toBe(first);
    const gz = await srv.api(`/api/session?session_id=${id}`, { headers: { 'Accept-Encoding': 'gzip' } });
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    expect(await gz.text()).toBe(first);
    const answer = await (await srv.json('/api/session/message', { session_id: id, text: 'fourth question' })).text();
    expect(await read(id)).toBe(answer);
    expect((await rows(id)).map((r) => r.content).slice(3)).toEqual(['first question', 'second question', 'third question', 'fourth question']);
    const renamed = await (await srv.json('/api/session/rename', { session_id: id, title: 'Renamed' })).text();
    expect(await read(id)).toBe(renamed);
  });

  it('shows an edit (a new version) and a switch back at once', async () => {
    const id = await srv.newSession();
    await srv.json('/api/session/message', { session_id: id, text: 'Plan a day in Porto', answer: 'summary' });
    await srv.json('/api/session/message', { session_id: id, text: 'with a boat trip', answer: 'summary' });
    expect((await rows(id)).map((r) => r.content)).toEqual(['Plan a day in Porto', 'with a boat trip']);
    await srv.json('/api/session/message', { session_id: id, text: 'Plan a day in Lisbon', message_index: 0, answer: 'summary' });
    const edited = await rows(id);
    expect(edited).toEqual([{ role: 'user', content: 'Plan a day in Lisbon', attachments: [], timestamp: expect.any(Number), versions: { index: 1, count: 2, edited: true } }]);
    const switched = await srv.json('/api/session/version', { session_id: id, message_index: 0, version: 0 });
    expect(switched.status).toBe(200);
    const back = await rows(id);
    expect(back.map((r) => r.content)).toEqual(['Plan a day in Porto', 'with a boat trip']);
    expect(back[0]!.versions).toEqual({ index: 0, count: 2, edited: true });
  });

  it('masks a secret learnt after the conversation was read, on the next read', async () => {
    const id = await srv.newSession();
    const key = 'zq7Xr2Lm9PwT4kHs8vNc-later-key';
    await srv.json('/api/session/message', { session_id: id, text: `my key is ${key} ok`, answer: 'summary' });
    expect(await read(id)).toContain(key);
    expect(await read(id)).toContain(key);
    rememberSecret(key);
    const after = await read(id);
    expect(after).not.toContain(key);
    expect(after).toContain(`my key is ${KNOWN_SECRET_MASK} ok`);
    const gz = await srv.api(`/api/session?session_id=${id}`, { headers: { 'Accept-Encoding': 'gzip' } });
    expect(await gz.text()).toBe(after);
  });
});
