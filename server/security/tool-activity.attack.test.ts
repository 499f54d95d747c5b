// An agent that puts credentials into its tool progress (issue 23, finding 6): the label Satchel stores as a
// tool's preview, the tool's name and its arguments. The stored row keeps name and preview only, each redacted
// whole before it is made one line and cut, so no key (the agent's own, a vendor-shaped one, one placed across the
// cut, a private-key block over several lines) reaches the session file, GET /api/session or the live frames.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_TOOL_PREVIEW_CHARS } from '../agent/stream/activity.js';
import { forgetSecrets } from '../redact/known.js';
import { contentChunk, startFakeAgent, type FakeAgent, type Frame } from '../testing/fake-agent.js';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { openSse } from '../testing/sse.js';
import { databaseBytes, storedJson, storedSessionText } from '../testing/stored-session.js';

const TURN_DEADLINE_MS = 15_000;
/** No vendor shape: only knowing its value masks it. */
const AGENT_KEY = 'Zq8wT3vN5bK1pL7mXr2cY9dH';
const VENDOR_KEY = 'sk-proj-9fK2mQ7vX1bN4tR8wZ3cL6hJ0pY5sD2g';
const PEM_BODY = 'MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7onLRnrq0';
const PEM = `-----BEGIN RSA PRIVATE KEY-----\n${PEM_BODY}\n${PEM_BODY}\n-----END RSA PRIVATE KEY-----`;
/** What of each secret must never be read back: enough characters that no mask keeps them. */
const SECRETS = [AGENT_KEY.slice(0, 12), AGENT_KEY.slice(12), VENDOR_KEY.slice(0, 12), VENDOR_KEY.slice(12, 30), PEM_BODY.slice(0, 24)];

let srv: TestServer;
let agent: FakeAgent;
let sessionId: string;
let frames: string;

function progress(tool: string, status: 'running' | 'completed', id: string, label: string, args: unknown): Frame {
  return { event: 'hermes.tool.progress', data: { tool, emoji: '🔧', label, toolCallId: id, status, args } };
}

beforeAll(async () => {
  forgetSecrets();
  agent = await startFakeAgent({ apiKey: AGENT_KEY, hermes: true });
  srv = await startTestServer();
  const saved = await srv.json('/api/agent/settings', { base_url: agent.baseUrl, api_key: AGENT_KEY, model: 'fake-model', kind: 'hermes' });
  expect(saved.status).toBe(200);
  // The vendor key starts a few characters before the preview's cut: cut first, its start would be kept.
  // No name before it (`OPENAI_API_KEY=` would mask any value): only its shape says it is a key.
  const acrossCut = `${'x '.repeat(MAX_TOOL_PREVIEW_CHARS / 2 - 5)}${VENDOR_KEY}`;
  const calls: [string, string][] = [
    ['terminal', `curl -H "Authorization: Bearer ${AGENT_KEY}" https://example.com`],
    ['terminal', acrossCut],
    ['write_file', `id_rsa\n${PEM}`],
    [`tool_${AGENT_KEY}`, 'name'],
  ];
  const script = calls.flatMap(([tool, label], i) => [
    progress(tool, 'running', `c${i}`, label, { env: { OPENAI_API_KEY: VENDOR_KEY }, key: AGENT_KEY, pem: PEM }),
    progress(tool, 'completed', `c${i}`, label, {}),
  ]);
  agent.next({ frames: [...script, contentChunk('Done.')] });
  sessionId = await srv.newSession();
  const res = await srv.json('/api/chat/start', { session_id: sessionId, message: 'Deploy it' });
  const { stream_id: streamId } = (await res.json()) as { stream_id: string };
  const stream = await openSse(srv.port, `/api/chat/stream?stream_id=${streamId}`);
  await stream.ended(TURN_DEADLINE_MS);
  frames = stream.frames().map((f) => `${f.event} ${f.data}`).join('\n');
}, TURN_DEADLINE_MS + 10_000);

afterAll(async () => {
  await srv?.stop();
  await agent?.close();
  forgetSecrets();
});

const found = (text: string) => SECRETS.filter((s) => text.includes(s));

describe('credentials in tool progress', () => {
  it('the agent was sent the key and the turn stored four tools (the control)', async () => {
    expect(agent.requests.at(-1)?.headers.authorization).toBe(`Bearer ${AGENT_KEY}`);
    const stored = await storedJson(srv.stateDir, sessionId);
    expect(stored.messages[1].tool_activity).toHaveLength(4);
    expect(stored.messages[1].tool_activity[2].preview).toBe('id_rsa [REDACTED PRIVATE KEY]');
  });

  it('never reach the session file', async () => {
    for (const file of [await storedSessionText(srv.stateDir, sessionId), await databaseBytes(srv.stateDir)]) {
      expect(found(file)).toEqual([]);
      expect(file).not.toContain('sk-proj-9');
    }
  });

  it('never reach GET /api/session or the live frames', async () => {
    const api = await (await srv.api(`/api/session?session_id=${sessionId}`)).text();
    expect(found(api)).toEqual([]);
    expect(found(frames)).toEqual([]);
  });
});
