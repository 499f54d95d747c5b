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
    expect(edited).toEqual([{ role: 'user', content: 'Plan a day in Lisbon', attachments: [], timestamp: expect.any(Number), versions: expect.objectContaining({ index: 1, count: 2, edited: true }) }]);
    const switched = await srv.json('/api/session/version', { session_id: id, message_index: 0, version: 0 });
    expect(switched.status).toBe(200);
    const back = await rows(id);
    expect(back.map((r) => r.content)).toEqual(['Plan a day in Porto', 'with a boat trip']);
    expect(back[0]!.versions).toMatchObject({ index: 0, count: 2, edited: true });
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

type Page = { session: { messages: Row[]; messages_offset: number; message_count: number } & Record<string, unknown> };
const page = async (id: string, query: string) => {
  const res = await srv.api(`/api/session?session_id=${id}&${query}`);
  return { status: res.status, body: (await res.json()) as Page & { error?: string } };
};

describe('GET /api/session with limit (and before): a page of the rows', () => {
  it('answers the newest rows, or those before a row, with the rest of the session as the whole read has it', async () => {
    const id = await srv.newSession();
    for (let i = 0; i < 7; i++) await srv.json('/api/session/message', { session_id: id, text: `question ${i}: ${'words '.repeat(i * 3)}`, answer: 'summary' });
    const whole = JSON.parse(await read(id)) as { session: { messages: Row[] } & Record<string, unknown> };
    const { messages: all, ...header } = whole.session;
    const tail = await page(id, 'limit=3');
    expect(tail.status).toBe(200);
    const { messages, messages_offset, message_count, ...rest } = tail.body.session;
    expect(messages).toEqual(all.slice(4));
    expect([messages_offset, message_count]).toEqual([4, 7]);
    expect(rest).toEqual(header);
    const older = (await page(id, 'limit=3&before=4')).body.session;
    expect(older.messages).toEqual(all.slice(1, 4));
    expect([older.messages_offset, older.message_count]).toEqual([1, 7]);
    const first = (await page(id, 'limit=3&before=1')).body.session;
    expect(first.messages).toEqual(all.slice(0, 1));
    expect(first.messages_offset).toBe(0);
    expect((await page(id, 'limit=3&before=0')).body.session.messages).toEqual([]);
    expect((await page(id, 'limit=1000')).body.session.messages).toEqual(all);
    // The whole read is unchanged beside pages.
    expect(JSON.parse(await read(id))).toEqual(whole);
  });

  it('a page after a change and after a secret is learnt shows them', async () => {
    const id = await srv.newSession();
    const key = 'Vb8Qw3Zt6Yk1Jr5Hm2-page-key';
    await srv.json('/api/session/message', { session_id: id, text: `key ${key} here`, answer: 'summary' });
    expect((await page(id, 'limit=5')).body.session.messages.map((r) => r.content)).toEqual([`key ${key} here`]);
    await srv.json('/api/session/message', { session_id: id, text: 'next', answer: 'summary' });
    expect((await page(id, 'limit=1')).body.session.messages.map((r) => r.content)).toEqual(['next']);
    rememberSecret(key);
    const masked = await (await srv.api(`/api/session?session_id=${id}&limit=2`)).text();
    expect(masked).not.toContain(key);
    expect((JSON.parse(masked) as Page).session.messages[0]!.content).toBe(`key ${KNOWN_SECRET_MASK} here`);
  });

  it('refuses a limit or a before it cannot follow, in words', async () => {
    const id = await srv.newSession();
    await srv.json('/api/session/message', { session_id: id, text: 'one', answer: 'summary' });
    const refused = async (query: string) => {
      const { status, body } = await page(id, query);
      return [status, body.error];
    };
    const badLimit = [400, 'limit must be a whole number from 1 to 1000'];
    for (const q of ['limit=0', 'limit=1001', 'limit=-1', 'limit=2.5', 'limit=', 'limit=ten']) expect(await refused(q)).toEqual(badLimit);
    expect(await refused('before=1')).toEqual([400, 'before must be a whole number, given with limit']);
    expect(await refused('limit=5&before=x')).toEqual([400, 'before must be a whole number, given with limit']);
    expect(await refused('limit=5&before=2')).toEqual([400, 'before is past the end of the conversation']);
    expect((await page('nope', 'limit=5')).status).toBe(404);
  });
});
