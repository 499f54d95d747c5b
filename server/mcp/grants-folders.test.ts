// Folder grants and list_sessions by folder (issue 39), through the official SDK client: a key granted a folder
// sees the conversations in it at the time of each call (moved in: seen; moved out or the folder deleted: "not
// found" from the next call), and `list_sessions {folder}` (an id or a name) lists only granted conversations in
// it, a folder the key may not name answering as a missing one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { storedSession, withDatabase } from '../testing/stored-session.js';
import { startTestServer, TEST_TOKEN, type TestServer } from '../testing/harness.js';
import { connectWith, firstText, ledger, makeKey } from './testing/keys.js';

let server: TestServer;
let car: string;
let home: string;
let inCar: string;
let alsoInCar: string;
let inHome: string;
let loose: string;
const open: Client[] = [];

async function ok(url: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const res = await server.json(url, body);
  expect(res.status, `${url}: ${await res.clone().text()}`).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

async function newFolder(name: string): Promise<string> {
  return ((await ok('/api/folders/new', { name })).folder as { id: string }).id;
}

async function move(session: string, folder: string | null): Promise<void> {
  await ok('/api/session/folder', { session_id: session, folder_id: folder });
}

async function client(grants: unknown[]): Promise<{ id: string; c: Client }> {
  const key = await makeKey(server, { name: 'Folder reader', grants });
  const c = await connectWith(server, key.token);
  open.push(c);
  return { id: key.id, c };
}

async function listed(c: Client, args: Record<string, unknown> = {}): Promise<string[] | string> {
  const result = await c.callTool({ name: 'list_sessions', arguments: args });
  if (result.isError) return firstText(result);
  return JSON.parse(firstText(result)).map((s: { session_id: string }) => s.session_id).sort();
}

const readText = async (c: Client, session: string) => firstText(await c.callTool({ name: 'read_session', arguments: { session_id: session } }));
const sorted = (...ids: string[]) => [...ids].sort();

beforeAll(async () => {
  server = await startTestServer();
  [inCar, alsoInCar, inHome, loose] = [await server.newSession(), await server.newSession(), await server.newSession(), await server.newSession()];
  for (const [id, word] of [[inCar, 'insurance'], [alsoInCar, 'tyres'], [inHome, 'roof'], [loose, 'loose']] as const) {
    await ok('/api/session/message', { session_id: id, text: `a note on the ${word}` });
  }
  car = await newFolder('Car insurance 2026');
  home = await newFolder('Home');
  await move(inCar, car);
  await move(alsoInCar, car);
  await move(inHome, home);
});

afterAll(async () => {
  for (const c of open) await c.close();
  await server.stop();
});

describe('a folder grant', () => {
  it('is made, listed back and refused when malformed', async () => {
    const { id } = await client([{ kind: 'folder', folder_id: car }]);
    const keys = (await (await server.api('/api/mcp/keys')).json()) as { keys: { id: string; grants: unknown[] }[] };
    expect(keys.keys.find((k) => k.id === id)!.grants).toEqual([{ kind: 'folder', folder_id: car, expires_at: null }]);
    for (const bad of [{ kind: 'folder' }, { kind: 'folder', folder_id: 'Car' }, { kind: 'folder', folder_id: 12 }]) {
      const res = await server.json('/api/mcp/keys', { name: 'Bad', grants: [bad] });
      expect([res.status, ((await res.json()) as { error: string }).error]).toEqual([400, 'A folder grant needs a folder_id']);
    }
    // A folder that does not exist (or is gone) is told, on making a key and on changing its grants.
    const missing = { kind: 'folder', folder_id: '0'.repeat(12) };
    for (const [url, body] of [['/api/mcp/keys', { name: 'Typo', grants: [missing] }], ['/api/mcp/keys/grants', { id, grants: [missing] }]] as const) {
      const res = await server.json(url, body);
      expect([res.status, ((await res.json()) as { error: string }).error]).toEqual([404, 'Folder not found']);
    }
  });

  it('sees the conversations in the folder now: moved in, seen; moved out, "Session not found" from the next call', async () => {
    const { c } = await client([{ kind: 'folder', folder_id: car }]);
    expect(await listed(c)).toEqual(sorted(inCar, alsoInCar));
    expect(await readText(c, inCar)).toContain('a note on the insurance');
    expect(await readText(c, inHome)).toBe('Session not found');
    expect(await readText(c, loose)).toBe('Session not found');

    await move(loose, car);
    expect(await readText(c, loose)).toContain('a note on the loose');
    await move(loose, null);
    expect(await readText(c, loose)).toBe('Session not found');
    expect(await listed(c)).toEqual(sorted(inCar, alsoInCar));

    // Search across conversations reaches the folder's conversations only.
    const found = JSON.parse(firstText(await c.callTool({ name: 'search', arguments: { query: 'note' } })));
    expect(new Set(found.results.map((r: { session_id: string }) => r.session_id))).toEqual(new Set([inCar, alsoInCar]));
  });

  it('"Keep out of MCP" overrides it', async () => {
    const kept = await server.newSession();
    await move(kept, car);
    await ok('/api/session/settings', { session_id: kept, keep_out_of_mcp: true });
    const { c } = await client([{ kind: 'folder', folder_id: car }]);
    expect(await listed(c)).toEqual(sorted(inCar, alsoInCar));
    expect(await readText(c, kept)).toBe('Session not found');
    await move(kept, null);
  });

  it('grants nothing once the folder is deleted, in an open session; a folder made again is another folder', async () => {
    const temp = await newFolder('Temporary');
    const a = await server.newSession();
    await ok('/api/session/message', { session_id: a, text: 'a temporary note' });
    await move(a, temp);
    const { c } = await client([{ kind: 'folder', folder_id: temp }]);
    expect(await listed(c)).toEqual([a]);
    expect(await readText(c, a)).toContain('a temporary note');
    await ok('/api/folders/delete', { folder_id: temp });
    expect(await listed(c)).toEqual([]);
    expect(await readText(c, a)).toBe('Session not found');
    // A folder made again under the same name is a new folder: the grant named the old one's id.
    const again = await newFolder('Temporary');
    await move(a, again);
    expect(await readText(c, a)).toBe('Session not found');
  });

  it('grants nothing to a conversation still naming a deleted folder (a crash between the delete\'s two steps)', async () => {
    const gone = await newFolder('Gone');
    const a = await server.newSession();
    await ok('/api/session/message', { session_id: a, text: 'a stranded note' });
    await move(a, gone);
    const { c } = await client([{ kind: 'folder', folder_id: gone }]);
    expect(await readText(c, a)).toContain('a stranded note');
    // Only the folder's row goes (store/folders.ts deletes it first, then moves each conversation out).
    await withDatabase(server.stateDir, (db) => db.run('DELETE FROM folders WHERE id = ?', [gone]));
    expect((await storedSession(server.stateDir, a))!.folder).toBe(gone);
    expect(await readText(c, a)).toBe('Session not found');
    expect(await listed(c)).toEqual([]);
  });
});

describe('list_sessions by folder', () => {
  it('takes a folder id or its name (as typed: any case), over the granted conversations only, and is recorded', async () => {
    const { id, c } = await client([{ kind: 'conversation', session_id: inCar }, { kind: 'folder', folder_id: home }]);
    expect(await listed(c, { folder: car })).toEqual([inCar]);
    expect(await listed(c, { folder: 'car insurance 2026' })).toEqual([inCar]);
    expect(await listed(c, { folder: 'Home' })).toEqual([inHome]);
    const [row] = await ledger(server, `&key_id=${id}`);
    expect(row).toMatchObject({ op: 'list_sessions', outcome: 'ok', kind: 'list', name: 'Home' });
  });

  it('a folder the key may not name answers exactly as a missing one', async () => {
    const { id, c } = await client([{ kind: 'folder', folder_id: car }]);
    expect(await listed(c, { folder: 'Home' })).toBe('Folder not found');
    expect(await listed(c, { folder: home })).toBe('Folder not found');
    expect(await listed(c, { folder: 'No such folder' })).toBe('Folder not found');
    expect(await listed(c, { folder: 'f'.repeat(12) })).toBe('Folder not found');
    const rows = (await ledger(server, `&key_id=${id}`)).filter((r) => r.op === 'list_sessions');
    expect(rows.map((r) => r.outcome)).toEqual(['not_found', 'not_found', 'not_found', 'not_found']);
  });

  it('an empty folder the key is granted lists as empty; the launch token lists any folder of the profile', async () => {
    const empty = await newFolder('Empty');
    const { c } = await client([{ kind: 'folder', folder_id: empty }]);
    expect(await listed(c, { folder: 'Empty' })).toEqual([]);
    const launch = await connectWith(server, TEST_TOKEN);
    open.push(launch);
    expect(await listed(launch, { folder: 'Car insurance 2026' })).toEqual(sorted(inCar, alsoInCar));
    expect(await listed(launch, { folder: 'Empty' })).toEqual([]);
    expect(await listed(launch, {})).toEqual(expect.arrayContaining([inCar, alsoInCar, inHome, loose]));
  });
});
