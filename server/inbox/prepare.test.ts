// Arrivals in the Inbox are prepared in the background: the agent's view of each (its chip's summary, a
// transcript, OCR) is in its sidecar before anyone asks. Files added to other conversations are left to their
// chips, which ask at once anyway.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentViewSidecarName } from '../attachments/agent-view.js';
import { postMultipart, startTestServer, type TestServer } from '../testing/harness.js';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(() => srv.stop());

async function until<T>(what: string, probe: () => T | undefined, deadlineMs = 15_000): Promise<T> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const sidecarOf = (stored: string) => path.join(path.dirname(stored), agentViewSidecarName(path.basename(stored)));

describe('Inbox arrivals are prepared in the background', () => {
  it('an opened file gets its agent-view sidecar without a chip asking; a chat upload does not', async () => {
    const chat = await srv.newSession();
    const upload = await postMultipart(srv, '/api/upload', [
      { name: 'session_id', content: chat },
      { name: 'file', filename: 'chat.txt', content: 'dropped in a chat' },
    ]);
    expect(upload.status).toBe(200);
    const chatFile = upload.body.path as string;

    const outside = path.join(srv.tmp, 'Downloads');
    fs.mkdirSync(outside, { recursive: true });
    const file = path.join(outside, 'minutes.txt');
    fs.writeFileSync(file, 'The board met on Tuesday and approved the budget.');
    const result = await srv.desktop.addToInbox([file]);
    expect(result.added).toEqual(['minutes.txt']);
    const stored = path.join(srv.stateDir, 'attachments', result.sessionId!, 'minutes.txt');
    const sidecar = await until('the sidecar', () => (fs.existsSync(sidecarOf(stored)) ? sidecarOf(stored) : undefined));
    expect(JSON.parse(fs.readFileSync(sidecar, 'utf8'))).toMatchObject({ state: 'ready', text: expect.stringContaining('characters of text') });
    // Queued before the Inbox file, so looked at already: the chat's chip computes its own when it asks.
    expect(fs.existsSync(sidecarOf(chatFile))).toBe(false);
  });
});
