// Folders over a real socket (issue 38, item 1): what the list says, what the database holds, and the exact
// refusals. A folder deleted leaves its conversations in no folder; another profile's folder is as missing as
// another profile's conversation.
import { describe, expect, it } from 'vitest';
import { testServerForFile } from '../testing/per-file-server.js';
import { storedSession, withDatabase } from '../testing/stored-session.js';
import {
  FOLDER_ID_MISSING,
  FOLDER_ID_NOT_STRING,
  FOLDER_NAME_EMPTY,
  FOLDER_NAME_NOT_STRING,
  FOLDER_NAME_TAKEN,
  FOLDER_NAME_TOO_LONG,
  FOLDER_NOT_FOUND,
  INVALID_FOLDER_ID,
  MAX_FOLDER_NAME_CHARS,
} from '../store/folders.js';

const srv = testServerForFile();

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function post(path: string, body: unknown, profile?: string): Promise<{ status: number; body: Json }> {
  const res = await srv.api(path, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'Content-Type': 'application/json', ...(profile ? { Cookie: `satchel_profile=${profile}` } : {}) },
  });
  return { status: res.status, body: (await res.json()) as Json };
}

async function folders(profile?: string): Promise<Json> {
  const res = await srv.api('/api/folders', profile ? { headers: { Cookie: `satchel_profile=${profile}` } } : {});
  expect(res.status).toBe(200);
  return (await res.json()) as Json;
}

async function listed(id: string): Promise<Json> {
  const { sessions } = (await (await srv.api('/api/sessions')).json()) as { sessions: Json[] };
  return sessions.find((s) => s.session_id === id)!;
}

async function make(name: string, profile?: string): Promise<Json> {
  const res = await post('/api/folders/new', { name }, profile);
  expect(res.status).toBe(200);
  return res.body.folder as Json;
}

describe('folders', () => {
  it('makes, lists, renames and deletes a folder; a conversation moved in is listed in it and goes back to none', async () => {
    const work = await make('  Car insurance  ');
    expect(work).toMatchObject({ name: 'Car insurance', count: 0 });
    expect(work.id).toMatch(/^[0-9a-f]{12}$/);
    const id = await srv.newSession();
    const before = await listed(id);
    expect(before.folder).toBeUndefined();

    const moved = await post('/api/session/folder', { session_id: id, folder_id: work.id });
    expect(moved.status).toBe(200);
    expect(moved.body.session.folder).toBe(work.id);
    // Not activity: the conversation keeps its place by last activity.
    expect(moved.body.session.updated_at).toBe(before.updated_at);
    expect((await listed(id)).folder).toBe(work.id);
    expect((await storedSession(srv.stateDir, id))!.folder).toBe(work.id);
    expect((await folders()).folders.find((f: Json) => f.id === work.id)).toMatchObject({ name: 'Car insurance', count: 1 });

    const renamed = await post('/api/folders/rename', { folder_id: work.id, name: 'Insurance' });
    expect(renamed).toEqual({ status: 200, body: { folder: { ...work, name: 'Insurance', count: 1 } } });

    const gone = await post('/api/folders/delete', { folder_id: work.id });
    expect(gone.status).toBe(200);
    expect(gone.body.moved).toBe(1);
    expect((await folders()).folders.some((f: Json) => f.id === work.id)).toBe(false);
    expect((await listed(id)).folder).toBeUndefined();
    expect((await storedSession(srv.stateDir, id))!.folder).toBeUndefined();
    // Still there, nothing else of it changed.
    expect((await listed(id)).updated_at).toBe(before.updated_at);
    expect(await withDatabase(srv.stateDir, (db) => db.all('SELECT id FROM folders WHERE id = ?', [work.id]))).toEqual([]);
  });

  it('takes a conversation out of its folder with folder_id null, and lists folders by name', async () => {
    const b = await make('Beta');
    const a = await make('alpha');
    const id = await srv.newSession();
    expect((await post('/api/session/folder', { session_id: id, folder_id: b.id })).status).toBe(200);
    const out = await post('/api/session/folder', { session_id: id, folder_id: null });
    expect(out.status).toBe(200);
    expect(out.body.session.folder).toBeUndefined();
    const names = (await folders()).folders.map((f: Json) => f.name);
    expect(names.indexOf('alpha')).toBeLessThan(names.indexOf('Beta'));
    expect(a.id).not.toBe(b.id);
  });

  it('refuses bad input with exact texts', async () => {
    const f = await make('Refusals');
    const id = await srv.newSession();
    const cases: [string, unknown, number, string][] = [
      ['/api/folders/new', { name: '   ' }, 400, FOLDER_NAME_EMPTY],
      ['/api/folders/new', { name: 42 }, 400, FOLDER_NAME_NOT_STRING],
      ['/api/folders/new', { name: 'x'.repeat(MAX_FOLDER_NAME_CHARS + 1) }, 400, FOLDER_NAME_TOO_LONG],
      ['/api/folders/new', { name: 'REFUSALS' }, 400, FOLDER_NAME_TAKEN],
      ['/api/folders/new', {}, 400, 'Missing required field(s): name'],
      ['/api/folders/rename', { folder_id: '../etc', name: 'x' }, 400, INVALID_FOLDER_ID],
      ['/api/folders/rename', { folder_id: '0123456789ab', name: 'x' }, 404, FOLDER_NOT_FOUND],
      ['/api/folders/delete', { folder_id: '0123456789ab' }, 404, FOLDER_NOT_FOUND],
      ['/api/session/folder', { session_id: id, folder_id: 7 }, 400, FOLDER_ID_NOT_STRING],
      ['/api/session/folder', { session_id: id }, 400, FOLDER_ID_MISSING],
      ['/api/session/folder', { session_id: id, folder_id: 'nope' }, 400, INVALID_FOLDER_ID],
      ['/api/session/folder', { session_id: id, folder_id: 'ffffffffffff' }, 404, FOLDER_NOT_FOUND],
      ['/api/session/folder', { session_id: 'ffffffffffff', folder_id: f.id }, 404, 'Session not found'],
    ];
    for (const [path, body, status, error] of cases) {
      const res = await post(path, body);
      expect({ path, body, status: res.status, error: res.body.error }).toEqual({ path, body, status, error });
    }
    // A rename to its own name in other letters is its own, not taken.
    expect((await post('/api/folders/rename', { folder_id: f.id, name: 'refusals' })).status).toBe(200);
    expect((await storedSession(srv.stateDir, id))!.folder).toBeUndefined();
  });

  it('keeps each profile to its own folders', async () => {
    const mine = await make('Shared name');
    const theirs = await make('Shared name', 'work');
    expect(theirs.id).not.toBe(mine.id);
    expect((await folders('work')).folders.map((f: Json) => f.id)).toEqual([theirs.id]);
    const id = await srv.newSession();
    expect((await post('/api/session/folder', { session_id: id, folder_id: theirs.id })).body.error).toBe(FOLDER_NOT_FOUND);
    expect((await post('/api/folders/delete', { folder_id: mine.id }, 'work')).status).toBe(404);
    expect((await post('/api/folders/rename', { folder_id: mine.id, name: 'Mine' }, 'work')).status).toBe(404);
    expect((await folders()).folders.some((f: Json) => f.id === mine.id)).toBe(true);
  });
});
