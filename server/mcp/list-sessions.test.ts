// list_sessions' filters (issue 39): by a part of the title, any case; the N most recently active, latest first;
// both within the key's grants only, and the filter in the ledger row.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { connectWith, firstText, ledger, makeKey } from './testing/keys.js';

let server: TestServer;
const ids: string[] = [];

beforeAll(async () => {
  server = await startTestServer();
  for (const title of ['Lease of the flat', 'Garden plans', 'lease renewal letter', 'Taxes 2026']) {
    const id = await server.newSession();
    expect((await server.json('/api/session/rename', { session_id: id, title })).status).toBe(200);
    // In this order of activity: the last one written is the most recent.
    expect((await server.json('/api/session/message', { session_id: id, text: title })).status).toBe(200);
    ids.push(id);
  }
});

afterAll(async () => {
  await server.stop();
});

const titles = (result: unknown) => (JSON.parse(firstText(result)) as { title: string }[]).map((s) => s.title);

it('filters by a part of the title and by recent activity, within the grants only', async () => {
  const key = await makeKey(server, { name: 'Lister', kind: 'other', grants: [0, 1, 2].map((i) => ({ kind: 'conversation', session_id: ids[i] })) });
  const client = await connectWith(server, key.token);
  try {
    expect(titles(await client.callTool({ name: 'list_sessions', arguments: { title: 'LEASE' } })).sort()).toEqual(['Lease of the flat', 'lease renewal letter']);
    expect(titles(await client.callTool({ name: 'list_sessions', arguments: { recent: 2 } }))).toEqual(['lease renewal letter', 'Garden plans']);
    // The most recent of all, not granted, is never listed.
    expect(titles(await client.callTool({ name: 'list_sessions', arguments: { title: 'taxes' } }))).toEqual([]);
    const bad = await client.callTool({ name: 'list_sessions', arguments: { recent: 0 } });
    expect(bad.isError).toBe(true);
    const rows = await ledger(server, `&key_id=${key.id}`);
    expect(rows.filter((r) => r.outcome === 'ok').map((r) => [r.op, r.query, r.range])).toEqual([
      ['list_sessions', 'taxes', ''],
      ['list_sessions', '', 'recent 2'],
      ['list_sessions', 'LEASE', ''],
    ]);
  } finally {
    await client.close();
  }
});
