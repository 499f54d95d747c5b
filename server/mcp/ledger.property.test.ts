// Issue 39's property at its full size: 10,000 random tool calls by 3 agent keys with random grants, grant changes
// and revokes → zero reads outside a grant, every granted read served, and the ledger holding exactly the calls
// made, in order, with their outcome and conversation. In process (HTTP would take minutes on this machine): the
// official SDK client over the SDK's in-memory transport, against the very MCP server /mcp builds for a key
// (mcp/server.ts createMcpServer: its scope, its tools, its ledger). What that skips, the HTTP gate letting a
// token in, is tested over HTTP by grants.property.test.ts and agent-keys.test.ts; a revoked key is refused here
// by the scope's own check at every call.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApp, type BuiltApp } from '../app.js';
import { DEFAULT_PROFILE } from '../store/profiles.js';
import { agentKeysOf, type AgentKeys } from './keys.js';
import { KEY_GONE } from './scope.js';
import { createMcpServer } from './server.js';
import { firstText } from './testing/keys.js';
import { commandOf, grantOf, KEYS, markerText, sees, toolCall, type Grant } from './testing/property-model.js';

/** RUNS × COMMANDS commands, of which ~86 % tool calls: over the 10,000 (3 keys a run: far under MAX_AGENT_KEYS). */
const RUNS = 5;
const COMMANDS = 2_350;
const CONVERSATIONS = 4;

let tmp: string;
let built: BuiltApp;
let keys: AgentKeys;
const sessions: string[] = [];

beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-ledger-property-'));
  const workspace = path.join(tmp, 'workspace');
  await fs.mkdir(workspace);
  built = await createApp({ host: '127.0.0.1', port: 0, stateDir: path.join(tmp, 'state'), maxUploadBytes: 1 << 20, defaultWorkspace: workspace, preloadSpeech: false });
  keys = agentKeysOf(built.app)!;
  for (let i = 0; i < CONVERSATIONS; i++) {
    const s = await built.app.sessions.create({ workspace, profile: DEFAULT_PROFILE });
    await built.app.sessions.addMessage(s.session_id, markerText(i), []);
    sessions.push(s.session_id);
  }
}, 60_000);

afterAll(async () => {
  await built.stop();
  await built.app.sessions.close().catch(() => {});
  await fs.rm(tmp, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
});

const grant = grantOf(CONVERSATIONS);
// Revokes rare: a revoked key only makes refusals, and most of a run should be reads.
const command = commandOf(CONVERSATIONS, { read: 40, search: 15, list: 15, grant: 10, revoke: 1 });

const stored = (g: Grant) => (g.all ? [{ kind: 'all' as const, target: '', expires_at: null }] : g.ids.map((i) => ({ kind: 'conversation' as const, target: sessions[i]!, expires_at: null })));
type Row = [op: string, outcome: string, session: string | null];

it('10,000 calls by 3 agents: no read outside a grant, every call in the ledger as it happened', async () => {
  let calls = 0;
  await fc.assert(
    fc.asyncProperty(fc.tuple(grant, grant, grant), fc.array(command, { minLength: COMMANDS, maxLength: COMMANDS }), async (initial, commands) => {
      const model = initial.map((g) => ({ grant: g, revoked: false }));
      const made = await Promise.all(initial.map((g, i) => keys.create(`agent ${i}`, 'other', stored(g))));
      const clients = await Promise.all(
        made.map(async ({ key }) => {
          const [client, serverSide] = InMemoryTransport.createLinkedPair();
          await createMcpServer(built.app, DEFAULT_PROFILE, 'test', key.id).connect(serverSide);
          const c = new Client({ name: 'property', version: '1' });
          await c.connect(client);
          return c;
        }),
      );
      const expected: Row[][] = [[], [], []];
      const first = await built.app.sessions.query((q) => q.get<{ id: number | null }>('SELECT max(id) AS id FROM mcp_ledger'));
      try {
        for (const c of commands) {
          const k = model[c.key]!;
          const id = made[c.key]!.key.id;
          if (c.op === 'grant') {
            if (k.revoked) await expect(keys.setGrants(id, stored(c.grant))).rejects.toThrow(/revoked/);
            else (await keys.setGrants(id, stored(c.grant)), (k.grant = c.grant));
            continue;
          }
          if (c.op === 'revoke') {
            await keys.revoke(id);
            k.revoked = true;
            continue;
          }
          calls++;
          const call = toolCall(c, sessions);
          const result = await clients[c.key]!.callTool(call);
          const said = firstText(result);
          const asked = c.op === 'read' ? sessions[c.conversation]! : null;
          if (k.revoked) {
            expect([result.isError, said]).toEqual([true, KEY_GONE]);
            expected[c.key]!.push([call.name, 'refused', asked]);
            continue;
          }
          if (c.op === 'read') {
            const allowed = sees(k.grant, c.conversation);
            expect([result.isError === true, allowed ? said.includes(`marker-${c.conversation}`) : said]).toEqual(allowed ? [false, true] : [true, 'Session not found']);
            expected[c.key]!.push(['read_session', allowed ? 'ok' : 'not_found', asked]);
            continue;
          }
          expect(result.isError).toBeFalsy();
          // What a list or a search shows is of granted conversations only, and all of them.
          const shown = c.op === 'search' ? (JSON.parse(said) as { results: { session_id: string }[] }).results.map((r) => r.session_id) : (JSON.parse(said) as { session_id: string }[]).map((s) => s.session_id);
          expect([...new Set(shown)].sort()).toEqual(sessions.filter((_, i) => sees(k.grant, i)).sort());
          if (c.op === 'list') expected[c.key]!.push(['list_sessions', 'ok', null]);
          else if (shown.length === 0) expected[c.key]!.push(['search', 'ok', null]);
          else for (const s of new Set(shown)) expected[c.key]!.push(['search', 'ok', s]);
        }
        // The ledger, per key, is exactly the calls made: every read served is there, none is there that was not.
        for (let i = 0; i < KEYS; i++) {
          const rows = await built.app.sessions.query((q) =>
            q.all<{ op: string; outcome: string; session_id: string | null }>('SELECT op, outcome, session_id FROM mcp_ledger WHERE key_id = ? AND id > ? ORDER BY id', [made[i]!.key.id, first?.id ?? 0]),
          );
          expect(rows.map((r): Row => [r.op, r.outcome, r.session_id])).toEqual(expected[i]);
        }
      } finally {
        await Promise.all(clients.map((c) => c.close().catch(() => {})));
        for (const { key } of made) await keys.revoke(key.id);
      }
    }),
    { numRuns: RUNS, endOnFailure: true },
  );
  // The size, made (grants and revokes are the rest of the commands).
  expect(calls).toBeGreaterThanOrEqual(10_000);
}, 300_000);
