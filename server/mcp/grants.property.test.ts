// The property of issue 39's grants and ledger: random tool calls by 3 agent keys with random grants, grant changes
// and revokes, through the official SDK client → no read outside a grant, every granted read served, and every
// read served in the ledger (its rows counted per key). RUNS × COMMANDS calls in all (the 10,000 is a
// bench-sized run: the shared 2-core machine runs this one in seconds).
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { connectWith, firstText, ledger, makeKey } from './testing/keys.js';
import { commandOf, grantOf, KEYS, markerText, sees, toolCall, type Grant } from './testing/property-model.js';

/** Each run makes 3 keys (64 at most in all, revoked ones counted): room is left for shrinking a failure. */
const RUNS = 10;
const COMMANDS = 40;
const CONVERSATIONS = 3;

let server: TestServer;
let sessions: string[] = [];

beforeAll(async () => {
  server = await startTestServer();
  for (let i = 0; i < CONVERSATIONS; i++) {
    const id = await server.newSession();
    expect((await server.json('/api/session/message', { session_id: id, text: markerText(i) })).status).toBe(200);
    sessions.push(id);
  }
});

afterAll(async () => {
  await server.stop();
});

const grant = grantOf(CONVERSATIONS);
const command = commandOf(CONVERSATIONS, { read: 6, search: 2, list: 2, grant: 2, revoke: 1 });
const wire = (g: Grant) => (g.all ? [{ kind: 'all' }] : g.ids.map((i) => ({ kind: 'conversation', session_id: sessions[i] })));

it('no read outside a grant; every read in the ledger', async () => {
  await fc.assert(
    fc.asyncProperty(fc.tuple(grant, grant, grant), fc.array(command, { minLength: 1, maxLength: COMMANDS }), async (initial, commands) => {
      const model = initial.map((g) => ({ grant: g, revoked: false }));
      const keys = await Promise.all(initial.map((g, i) => makeKey(server, { name: `agent ${i}`, grants: wire(g) })));
      const clients: Client[] = await Promise.all(keys.map((k) => connectWith(server, k.token)));
      const served = [0, 0, 0];
      try {
        for (const c of commands) {
          const k = model[c.key]!;
          if (c.op === 'grant') {
            const res = await server.json('/api/mcp/keys/grants', { id: keys[c.key]!.id, grants: wire(c.grant) });
            expect(res.status).toBe(k.revoked ? 400 : 200);
            if (!k.revoked) k.grant = c.grant;
            continue;
          }
          if (c.op === 'revoke') {
            expect((await server.json('/api/mcp/keys/revoke', { id: keys[c.key]!.id })).status).toBe(200);
            k.revoked = true;
            continue;
          }
          const result = await clients[c.key]!.callTool(toolCall(c, sessions)).catch(() => undefined);
          if (k.revoked) {
            expect(result).toBeUndefined();
            continue;
          }
          expect(result).toBeDefined();
          const text = firstText(result);
          if (c.op === 'read') {
            const allowed = sees(k.grant, c.conversation);
            expect(result!.isError === true).toBe(!allowed);
            if (allowed) expect(text).toContain(`marker-${c.conversation}`);
            else expect(text).toBe('Session not found');
          } else {
            expect(result!.isError).toBeFalsy();
            // Whatever a list or a search shows is of granted conversations only.
            for (let i = 0; i < CONVERSATIONS; i++) if (!sees(k.grant, i)) expect(text).not.toContain(sessions[i]);
          }
          // A read served is one ledger row; a search across conversations one per conversation it showed (or one).
          if (!result!.isError) served[c.key]! += c.op === 'search' ? Math.max(1, new Set(JSON.parse(text).results.map((r: { session_id: string }) => r.session_id)).size) : 1;
        }
        for (let i = 0; i < KEYS; i++) {
          const rows = await ledger(server, `&key_id=${keys[i]!.id}`);
          const ok = rows.filter((r) => r.outcome === 'ok');
          expect(ok.length).toBe(served[i]);
          for (const r of ok.filter((x) => x.op === 'read_session')) expect(sessions).toContain(r.session_id);
        }
      } finally {
        await Promise.all(clients.map((c) => c.close().catch(() => {})));
        for (const k of keys) await server.json('/api/mcp/keys/revoke', { id: k.id });
      }
    }),
    { numRuns: RUNS },
  );
}, 240_000);
