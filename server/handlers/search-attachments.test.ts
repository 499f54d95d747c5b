// Search finds the text the agent got from attachments, with the attachment's name: a text file from its upload
// on, an Office document once a turn has converted it (its sidecar), and none of it once the session is gone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDocx, wPara, wRun } from '../office/testing/fixtures.js';
import { Db } from '../store/db/connection.js';
import { SESSION_DB_FILE } from '../store/sessions.js';
import { searchResults, shownSnippet, uploadOk, type Json } from '../testing/search-client.js';
import { startTestServer, waitUntil, type TestServer } from '../testing/harness.js';
import { scriptedAgent, TEST_AGENT_CONFIG, type ScriptedAgent } from '../testing/scripted-agent.js';
import path from 'node:path';

/** Short enough for the purge to come within the test. */
const GRACE_MS = 300;

let srv: TestServer;
let agent: ScriptedAgent;
beforeAll(async () => {
  agent = scriptedAgent();
  srv = await startTestServer({ sessionDeleteGraceMs: GRACE_MS, agent: { streamTurn: agent.streamTurn, loadConfig: () => TEST_AGENT_CONFIG } });
});
afterAll(async () => {
  await srv.stop();
});

const search = (q: string): Promise<Json[]> => searchResults(srv, q);
const shown = shownSnippet;

const upload = (id: string, filename: string, content: string | Buffer): Promise<Json> => uploadOk(srv, id, filename, content);

/** The search rows the database holds for a session, read through a connection of the test's own. */
async function indexedKinds(id: string): Promise<string[]> {
  const db = await Db.openReadOnly(path.join(srv.stateDir, SESSION_DB_FILE));
  try {
    return (await db.all<{ kind: string }>('SELECT kind FROM search_docs WHERE session_id = ? ORDER BY kind', [id])).map((r) => r.kind);
  } finally {
    await db.close();
  }
}

describe('searching attachment text', () => {
  it("finds a word only inside an uploaded text file, named by the attachment's stored name", async () => {
    const id = await srv.newSession();
    await upload(id, 'field notes.txt', 'Day 3.\nA white pelican circled the estuary twice before landing.');
    const hits = (await search('pelican')).filter((r) => r.session_id === id);
    expect(hits).toHaveLength(1);
    expect(hits[0]).toMatchObject({ kind: 'attachment_text', attachment: 'field_notes.txt' });
    expect(shown(hits[0]!)).toBe('Day 3.\nA white [pelican] circled the estuary twice before landing.');
    // The name is searchable too, as its own kind.
    expect((await search('field notes')).filter((r) => r.session_id === id).map((r) => r.kind)).toEqual(['attachment']);
  });

  it("finds an Office document's words once a turn has sent its Markdown to the agent", async () => {
    const id = await srv.newSession();
    const up = await upload(id, 'plan.docx', await buildDocx(wPara(wRun('Ship the avocet survey on Friday'))));
    expect(await search('avocet')).toEqual([]);
    const res = await srv.json('/api/chat/start', { session_id: id, message: 'summarize', attachments: [up] });
    expect(res.status).toBe(200);
    const turn = await agent.turn(agent.turns.length);
    turn.push({ kind: 'token', text: 'A survey plan.' });
    turn.finish();
    await waitUntil(async () => (await search('avocet')).length > 0, 'the sidecar indexed');
    const hits = (await search('avocet')).filter((r) => r.session_id === id);
    expect(hits).toHaveLength(1);
    expect(hits[0]).toMatchObject({ kind: 'attachment_text', attachment: 'plan.docx' });
    expect(shown(hits[0]!)).toContain('[avocet]');
  });

  it('never finds a secret inside an attachment, and never shows part of it', async () => {
    const id = await srv.newSession();
    const secret = 'sk-proj-Zq81XmT4vR7pLs2NwK9cY3bH6dJ0fA5gE8uQ';
    await upload(id, 'env.txt', `OPENAI_API_KEY=${secret}\nthe godwit config`);
    expect(await search(secret.slice(12, 30))).toEqual([]);
    const hit = (await search('godwit')).find((r) => r.session_id === id)!;
    expect(shown(hit)).not.toContain(secret.slice(10, -4));
  });

  it('forgets every entry of a deleted session once it is purged', async () => {
    const id = await srv.newSession();
    await upload(id, 'notes.txt', 'the dunlin flock');
    expect(await indexedKinds(id)).toEqual(['attachment', 'attachment_text', 'title']);
    expect((await srv.json('/api/session/delete', { session_id: id })).status).toBe(200);
    expect(await search('dunlin')).toEqual([]);
    await waitUntil(async () => (await indexedKinds(id)).length === 0, 'the purge');
  });
});
