// GET /api/attachment/summary: what the agent will get from an attachment, computed by the agent's own reader once
// and kept in a hidden sidecar beside it; a changed file, another budget or a new reader computes it again; a
// name not in the session's folder is a 404, never a 500.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_VIEW_VERSION, agentViewComputations, agentViewSidecarName } from '../attachments/agent-view.js';
import { gzipSync } from 'node:zlib';
import type { AgentConfig } from '../agent/types.js';
import { postMultipart, startTestServer, type TestServer } from '../testing/harness.js';

/** The budget the test's agent connection is configured with: small, so a long file is cut. */
const CONTEXT_CHARS = 1_000;
let srv: TestServer;
let id: string;
let contextChars = CONTEXT_CHARS;
const agent: AgentConfig = { baseUrl: 'http://127.0.0.1:9/v1', model: 'm', kind: 'openai', idleTimeoutMs: 1_000, contextChars: CONTEXT_CHARS };

beforeAll(async () => {
  srv = await startTestServer({ agent: { loadConfig: () => ({ ...agent, contextChars }) } });
  id = await srv.newSession();
});
afterAll(async () => {
  await srv.stop();
});

async function upload(filename: string, content: string | Buffer, session = id): Promise<string> {
  const res = await postMultipart(srv, '/api/upload', [
    { name: 'session_id', content: session },
    { name: 'file', filename, content },
  ]);
  expect(res.status).toBe(200);
  return res.body.path as string;
}

const summary = async (name: string, session = id) => {
  const res = await srv.api(`/api/attachment/summary?${new URLSearchParams({ session_id: session, name })}`);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

describe('GET /api/attachment/summary', () => {
  it('says what the agent gets, computed once: the second answer is read from the sidecar', async () => {
    const stored = await upload('notes.txt', 'hello agent');
    const before = agentViewComputations();
    expect(await summary('notes.txt')).toEqual({ status: 200, body: { state: 'ready', text: '11 characters of text' } });
    expect(agentViewComputations()).toBe(before + 1);
    const sidecar = path.join(path.dirname(stored), agentViewSidecarName('notes.txt'));
    const written = JSON.parse(await fs.readFile(sidecar, 'utf8'));
    expect(written).toMatchObject({ version: AGENT_VIEW_VERSION, size: 11, context_chars: CONTEXT_CHARS, state: 'ready', text: '11 characters of text' });
    // The second answer is the sidecar's: a text put there (key unchanged) is what comes back, nothing computed.
    await fs.writeFile(sidecar, JSON.stringify({ ...written, text: 'from the sidecar' }));
    expect((await summary('notes.txt')).body).toEqual({ state: 'ready', text: 'from the sidecar' });
    expect(agentViewComputations()).toBe(before + 1);
  });

  it('a file stored decompressed from a .gz names the .gz, as the turn does', async () => {
    await upload('server.log.gz', gzipSync('GET /health 200\n'));
    expect(await summary('server.log')).toEqual({ status: 200, body: { state: 'ready', text: '16 characters of text, decompressed from server.log.gz' } });
  });

  it('asked at once by several (a chip, a sent message, MCP), it is computed once', async () => {
    await upload('together.txt', 'one computation');
    const before = agentViewComputations();
    const answers = await Promise.all([1, 2, 3, 4].map(() => summary('together.txt')));
    expect(answers.map((a) => a.body.text)).toEqual(Array(4).fill('15 characters of text'));
    expect(agentViewComputations()).toBe(before + 1);
  });

  it('a changed file is computed again', async () => {
    const stored = await upload('grows.txt', 'abc');
    expect((await summary('grows.txt')).body).toEqual({ state: 'ready', text: '3 characters of text' });
    await fs.appendFile(stored, 'defgh');
    expect((await summary('grows.txt')).body).toEqual({ state: 'ready', text: '8 characters of text' });
  });

  it('an empty file says so, never "Ready: 0 characters of text" (issue 38)', async () => {
    await upload('empty.txt', '');
    expect((await summary('empty.txt')).body).toEqual({ state: 'partial', text: 'the file is empty; only its name is sent' });
  });

  it('a text longer than the configured contextChars is partial, and another budget computes it again', async () => {
    await upload('long.txt', 'x'.repeat(3_000));
    expect((await summary('long.txt')).body).toEqual({ state: 'partial', text: 'cut at 1,000 of 3,000 characters' });
    contextChars = 5_000;
    try {
      expect((await summary('long.txt')).body).toEqual({ state: 'ready', text: '3,000 characters of text' });
    } finally {
      contextChars = CONTEXT_CHARS;
    }
  });

  it('a corrupt .docx and a binary file are unreadable, with why', async () => {
    await upload('broken.docx', Buffer.from('PK\x03\x04 not really a zip'));
    expect((await summary('broken.docx')).body).toEqual({ state: 'unreadable', text: 'its text could not be extracted: the file may be damaged or encrypted' });
    await upload('blob.bin', Buffer.from([0, 1, 2, 3, 0, 255, 254, 0]));
    expect((await summary('blob.bin')).body).toEqual({ state: 'unreadable', text: '8 bytes the agent cannot read: only its name is sent' });
  });

  it('an extracted archive is its file list, with its small text files inline', async () => {
    const made = path.join(srv.tmp, 'made');
    await fs.mkdir(path.join(made, 'docs'), { recursive: true });
    await fs.writeFile(path.join(made, 'readme.txt'), 'read me');
    await fs.writeFile(path.join(made, 'docs', 'plan.md'), '# plan');
    execFileSync('bsdtar', ['-cf', path.join(srv.tmp, 'project.tar'), '-C', made, '.']);
    const x = await postMultipart(srv, '/api/upload/extract', [
      { name: 'session_id', content: id },
      { name: 'file', filename: 'project.tar', content: await fs.readFile(path.join(srv.tmp, 'project.tar')) },
    ]);
    expect(x.status).toBe(200);
    expect((await summary(path.basename(x.body.dest as string))).body).toEqual({ state: 'ready', text: 'file list of 2 files, 2 text files inline' });
  });

  it('removing the chip removes its sidecar too', async () => {
    const stored = await upload('gone.txt', 'soon gone');
    await summary('gone.txt');
    const sidecar = path.join(path.dirname(stored), agentViewSidecarName('gone.txt'));
    await fs.access(sidecar);
    const res = await srv.api(`/api/session/attachment?${new URLSearchParams({ session_id: id, path: stored })}`, { method: 'DELETE' });
    expect(res.status).toBe(200);
    await expect(fs.access(sidecar)).rejects.toThrow(/ENOENT/);
  });

  it('the sidecar is hidden: never listed by the attachment folder or MCP, never readable by name', async () => {
    await upload('seen.txt', 'seen');
    await summary('seen.txt');
    expect((await summary(agentViewSidecarName('seen.txt'))).status).toBe(404);
    const raw = await srv.api(`/api/attachment/raw?${new URLSearchParams({ session_id: id, name: agentViewSidecarName('seen.txt') })}`);
    expect(raw.status).toBe(404);
  });

  it('a name not in the session’s folder is a 404, never a 500', async () => {
    const other = await srv.newSession();
    await upload('theirs.txt', 'not yours', other);
    for (const name of ['missing.txt', '../theirs.txt', `../${other}/theirs.txt`, '/etc/passwd', 'a/b.txt', '..', '.']) {
      expect((await summary(name)).status, name).toBe(404);
    }
    expect((await summary('theirs.txt')).status).toBe(404);
    expect((await summary('notes.txt', 'ffffffffffff')).status).toBe(404);
  });
});
