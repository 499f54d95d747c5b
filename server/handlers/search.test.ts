// GET /api/search over a real socket: what a person typing in the search field gets back.
import { describe, expect, it } from 'vitest';
import { type TestServer } from '../testing/harness.js';
import { testServerForFile } from '../testing/per-file-server.js';
import { databaseBytes } from '../testing/stored-session.js';
import { MAX_SEARCH_QUERY_CHARS } from '../store/db/search-query.js';

const srv = testServerForFile({ sessionDeleteGraceMs: 60_000 });

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const search = async (q: string, extra = '', headers: Record<string, string> = {}): Promise<{ status: number; body: Json }> => {
  const res = await srv.api(`/api/search?q=${encodeURIComponent(q)}${extra}`, { headers });
  return { status: res.status, body: (await res.json()) as Json };
};

/** A session titled `title` holding `messages` (user rows), its id. */
async function session(title: string, messages: string[], profile?: string): Promise<string> {
  const id = await srv.newSession(profile ? { profile } : {});
  const cookie: Record<string, string> = profile ? { Cookie: `satchel_profile=${profile}` } : {};
  const post = (p: string, body: unknown) => srv.api(p, { method: 'POST', body: JSON.stringify(body), headers: { 'Content-Type': 'application/json', ...cookie } });
  expect((await post('/api/session/rename', { session_id: id, title })).status).toBe(200);
  for (const text of messages) expect((await post('/api/session/message', { session_id: id, text })).status).toBe(200);
  return id;
}

/** The snippet as the UI shows it, matches in [brackets]. */
const shown = (r: Json) => (r.snippet as { text: string; match: boolean }[]).map((s) => (s.match ? `[${s.text}]` : s.text)).join('');

describe('GET /api/search', () => {
  it('finds a word in a message with its index, role and a highlighted snippet', async () => {
    const id = await session('Birds of the marsh', ['nothing here', 'the grey heron stood still in the reeds at dawn']);
    const { status, body } = await search('heron');
    expect(status).toBe(200);
    expect(body.query).toBe('heron');
    expect(body.complete).toBe(true);
    const hit = body.results.find((r: Json) => r.session_id === id);
    expect(hit).toMatchObject({ session_id: id, title: 'Birds of the marsh', kind: 'message', message_index: 1, role: 'user' });
    expect(shown(hit)).toBe('the grey [heron] stood still in the reeds at dawn');
    expect(typeof hit.updated_at).toBe('string');
  });

  it('matches the last word as a prefix, every other word whole', async () => {
    const id = await session('Prefixes', ['a kingfisher dives for minnows']);
    expect((await search('kingf')).body.results.map((r: Json) => r.session_id)).toContain(id);
    expect((await search('kingfisher div')).body.results.map((r: Json) => r.session_id)).toContain(id);
    // Not the last word: whole words only.
    expect((await search('kingf dives')).body.results.map((r: Json) => r.session_id)).not.toContain(id);
  });

  it('ranks a title above a message that uses the word as often, and the denser message higher', async () => {
    const inTitle = await session('Osprey sightings', ['counted at the lake']);
    const inMessage = await session('Lake notes', ['an osprey over the lake']);
    const dense = await session('Lake notes', ['osprey osprey osprey: three of them']);
    const ids = (await search('osprey')).body.results.map((r: Json) => r.session_id);
    expect(ids.indexOf(inTitle)).toBe(0);
    expect(ids.indexOf(dense)).toBeLessThan(ids.indexOf(inMessage));
  });

  it('reads FTS5 syntax as plain text, never a 500', async () => {
    const id = await session('Syntax', ['she said "NEAR(heron egret)" and a*b: c^d -e']);
    for (const q of ['"', '""', "'", 'NEAR(', 'NEAR(heron', '*', '-', ':', '^', 'a*b', '-e', 'c^d', 'AND', 'OR NOT', '"NEAR(heron', '(', ')', '{', 'heron:', 'text:heron', '\u0001', '\\']) {
      const { status, body } = await search(q);
      expect(status, q).toBe(200);
      expect(Array.isArray(body.results), q).toBe(true);
    }
    expect((await search('"NEAR(heron')).body.results.map((r: Json) => r.session_id)).toContain(id);
    expect((await search('"')).body.results).toEqual([]);
  });

  it('refuses an empty, blank or too long query and a bad limit, with clear texts', async () => {
    expect(await search('')).toEqual({ status: 400, body: { error: 'Search text is empty' } });
    expect(await search('   \t')).toEqual({ status: 400, body: { error: 'Search text is empty' } });
    expect(await search('x'.repeat(MAX_SEARCH_QUERY_CHARS + 1))).toEqual({ status: 400, body: { error: `Search text too long (max ${MAX_SEARCH_QUERY_CHARS} characters)` } });
    expect((await search('x'.repeat(MAX_SEARCH_QUERY_CHARS))).status).toBe(200);
    for (const limit of ['0', '51', '-1', '1.5', 'ten', '', '1e1']) expect(await search('heron', `&limit=${limit}`), limit).toEqual({ status: 400, body: { error: 'Invalid limit' } });
  });

  it('gives at most `limit` results and says when more matched', async () => {
    for (let i = 0; i < 3; i++) await session(`Wren ${i}`, []);
    const two = await search('wren', '&limit=2');
    expect(two.body.results).toHaveLength(2);
    expect(two.body.complete).toBe(false);
    const all = await search('wren', '&limit=50');
    expect(all.body.results).toHaveLength(3);
    expect(all.body.complete).toBe(true);
  });

  it("never shows another profile's sessions, and shows them to that profile", async () => {
    const id = await session('Work plover', ['plover'], 'work');
    expect((await search('plover')).body.results).toEqual([]);
    expect((await search('plover', '', { Cookie: 'satchel_profile=work' })).body.results.map((r: Json) => r.session_id)).toEqual([id, id]);
  });

  it('never finds a deleted session; archived and pinned ones are found and flagged', async () => {
    const gone = await session('Bittern', ['bittern booming']);
    const kept = await session('Bittern kept', []);
    expect((await srv.json('/api/session/delete', { session_id: gone })).status).toBe(200);
    expect((await srv.json('/api/session/archive', { session_id: kept, archived: true })).status).toBe(200);
    expect((await srv.json('/api/session/pin', { session_id: kept, pinned: true })).status).toBe(200);
    const { body } = await search('bittern');
    expect(body.results.map((r: Json) => r.session_id)).toEqual([kept]);
    expect(body.results[0]).toMatchObject({ archived: true, pinned: true, kind: 'title' });
  });

  it("never finds a secret by its characters, nor shows any part of it in a snippet", async () => {
    const secret = 'ghp_Qw7rT9zXk2LmN4pV8sB1cD6fG3hJ5yU0aE2i';
    const middle = secret.slice(10, 30);
    const id = await session('Tokens', [`my token is ${secret} for the curlew repo`]);
    expect((await search(middle)).body.results).toEqual([]);
    expect((await search(secret)).body.results.filter((r: Json) => shown(r).includes(middle))).toEqual([]);
    const { body } = await search('curlew');
    const hit = body.results.find((r: Json) => r.session_id === id);
    expect(shown(hit)).not.toContain(middle);
    expect(shown(hit)).toContain('[curlew]');
    expect(JSON.stringify(body)).not.toContain(secret.slice(6, -4));
    // Not in the index either: the database's bytes hold it only in the message row, never in a search row.
    expect((await databaseBytes(srv.stateDir)).split(middle).length - 1).toBeLessThanOrEqual(1);
  });
});
