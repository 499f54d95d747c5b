// Agent tokens never reach the log (issue 39: "masked everywhere: responses, logs, conversations"). The server's
// log is captured at debug level over a day of keys: two agents connect with the official SDK client, search for
// and read what one may and may not, present wrong, revoked and paused tokens, and a dropped archive names its
// members after the tokens (the archive writer logs a skipped member's name: one line that certainly carries what
// was given). After a restart, a revoked token is no longer a known secret (only hashes are stored): its shape
// still masks it. The captured lines must name what happened, and hold no token nor the random part of one.
import fs from 'node:fs/promises';
import { expect, it } from 'vitest';
import { buildTar } from '../archive/testing/tar-builder.js';
import { forgetSecrets, KNOWN_SECRET_MASK } from '../redact/known.js';
import { multipartBody, startTestServer, TEST_TOKEN, type TestServer } from '../testing/harness.js';
import { freshDir } from '../testing/fresh-store.js';
import { connectWith, makeKey, type MadeKey } from './testing/keys.js';
import { captureLogLines } from '../testing/log-capture.js';

const logged = captureLogLines('debug');

/** An archive whose two members share a name: the second is skipped, and the writer logs its name. */
async function dropArchiveNamed(server: TestServer, session: string, name: string): Promise<void> {
  const tar = buildTar([
    { name, content: Buffer.from('one') },
    { name, content: Buffer.from('two') },
  ]);
  const boundary = 'satchelKeyLogBoundary';
  const res = await server.api('/api/workspace/upload', {
    method: 'POST',
    body: new Uint8Array(multipartBody(boundary, [{ name: 'session_id', content: session }, { name: 'file', filename: 'keys.tar', content: tar }])),
    headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` },
  });
  expect(res.status).toBe(200);
}

/** What must never be in a log line of `key`: the token, and its random part alone. */
const secretsOf = (key: MadeKey): string[] => [key.token, key.token.slice('satchel_ak_'.length)];

it('no log line holds an agent token, known or only shaped like one, through a day of two agents', async () => {
  const stateDir = await freshDir('satchel-keys-log-');
  let server = await startTestServer({ stateDir });
  try {
    const session = await server.newSession();
    expect((await server.json('/api/session/message', { session_id: session, text: 'the lease ends in May' })).status).toBe(200);
    const codex = await makeKey(server, { name: 'Codex', kind: 'codex', grants: [{ kind: 'all' }] });
    const cursor = await makeKey(server, { name: 'Cursor', kind: 'cursor', grants: [{ kind: 'conversation', session_id: session }] });
    const other = await server.newSession();

    // Both agents at work, each handing the other's token around as text.
    const a = await connectWith(server, codex.token);
    await a.callTool({ name: 'list_sessions', arguments: {} });
    await a.callTool({ name: 'search', arguments: { query: `lease ${cursor.token}` } });
    await a.callTool({ name: 'read_file', arguments: { session_id: session, path: `${cursor.token}.txt` } });
    const b = await connectWith(server, cursor.token);
    await b.callTool({ name: 'search', arguments: { query: codex.token, session_id: other } });
    await b.callTool({ name: 'get_session', arguments: { session_id: codex.token } });
    await b.close();
    // A wrong token (one character off), in a header and in the address.
    const wrong = `${codex.token.slice(0, -1)}${codex.token.endsWith('A') ? 'B' : 'A'}`;
    for (const headers of [{ Authorization: `Bearer ${wrong}` }, { Authorization: `Bearer ${TEST_TOKEN}` }]) {
      const res = await fetch(`${server.origin}/mcp?token=${codex.token}`, { method: 'POST', headers: { ...headers, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }, body: '{}' });
      expect([400, 401, 403, 404, 406]).toContain(res.status);
    }
    // The archive writer logs each skipped member's name: the tokens while known.
    await dropArchiveNamed(server, session, `${codex.token}.txt`);
    // Paused, then revoked: its open session is refused on its next call.
    expect((await server.json('/api/mcp/keys/pause', { id: cursor.id, paused: true })).status).toBe(200);
    expect((await server.json('/api/mcp/keys/revoke', { id: codex.id })).status).toBe(200);
    await a.callTool({ name: 'list_sessions', arguments: {} }).catch(() => undefined);
    await a.close().catch(() => undefined);

    // A new process: nothing remembers the revoked token (only hashes were stored); a file named after it.
    await server.stop();
    forgetSecrets();
    server = await startTestServer({ stateDir });
    const later = await server.newSession();
    await dropArchiveNamed(server, later, `${codex.token}.txt`);
    await dropArchiveNamed(server, later, `notes-${cursor.token}`);

    for (const line of logged()) for (const secret of [...secretsOf(codex), ...secretsOf(cursor)]) expect(line).not.toContain(secret);
    // Where a token was: a known secret's mask while the process knew it; after the restart, the redaction rules'
    // mask of a token by its shape (redaction.md: its first 6 and last 4 characters).
    const masked = (token: string): string => `${token.slice(0, 6)}...${token.slice(-4)}`;
    expect(logged().filter((l) => l.includes('archive member skipped')).map((l) => l.replace(/^\S+ DEBUG /, ''))).toEqual([
      `archive member skipped (duplicate): ${KNOWN_SECRET_MASK}.txt`,
      `archive member skipped (duplicate): ${masked(codex.token)}.txt`,
      `archive member skipped (duplicate): notes-${masked(cursor.token)}`,
    ]);
    expect(logged().length).toBeGreaterThan(3);
  } finally {
    await server.stop();
    await fs.rm(stateDir, { recursive: true, force: true });
  }
});
