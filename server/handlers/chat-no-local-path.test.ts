// Issue 36: never a local path to the agent. Real turns through the real server against an OpenAI-compatible fake
// that records every request: a PDF, a text file, a binary, files that cannot be read, an extracted zip, Inbox
// arrivals (read, and past the per-turn limit only named), a workspace folder (changed between turns, then
// removed), each followed by a turn that carries them in the history. Every recorded body (the turns' and the
// background title requests') is searched for the state folder, the attachment folder, the workspace's path and
// the home folder: none may appear. A file is named by its Satchel URI instead (core/satchel-uri.ts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ARRIVED_FILES_READ } from '../agent/arrivals-input.js';
import { yazlZip } from '../archive/testing/fixtures.js';
import { FIXTURES } from '../content/testing/pdf-tools.js';
import { reply, startFakeAgent, type FakeAgent, type RecordedRequest } from '../testing/fake-agent.js';
import { postMultipart, startTestServer, waitUntil, type TestServer } from '../testing/harness.js';
import { runTurn } from '../testing/turns.js';

const KEY = 'no-path-key-0123456789abcdef';
let srv: TestServer;
let agent: FakeAgent;
let home: string;

beforeAll(async () => {
  agent = await startFakeAgent({ apiKey: KEY });
  // The titles are asked of the agent too: answered, so their requests are real ones to search.
  agent.titleScript = reply('A title');
  srv = await startTestServer({ maxUploadBytes: 8 * 1024 * 1024 });
  home = os.homedir();
  const res = await srv.json('/api/agent/settings', { base_url: agent.baseUrl, api_key: KEY, model: 'fake-model', kind: 'openai' });
  expect(res.status, await res.clone().text()).toBe(200);
});
afterAll(async () => {
  await srv.stop();
  await agent.close();
});

/** The body as sent, without image data URLs: base64 may spell anything, a path included, by chance. */
const bodyText = (r: RecordedRequest) => JSON.stringify(r.body).replace(/data:[a-z/+.-]+;base64,[A-Za-z0-9+/=]+/g, 'data:…');
const everyBody = () => [...agent.requests, ...agent.titleRequests].filter((r) => r.body !== undefined);
const turn = (body: Record<string, unknown>) => runTurn(srv, agent, body, reply('Noted.'));

async function upload(id: string, filename: string, content: Buffer | string) {
  const { status, body } = await postMultipart(srv, '/api/upload', [
    { name: 'session_id', content: id },
    { name: 'file', filename, content },
  ]);
  expect(status, JSON.stringify(body)).toBe(200);
  return body;
}

describe('no request body holds a path of this machine', () => {
  it('attachments of every kind, an extracted zip, Inbox arrivals and a workspace, over several turns', async () => {
    // Attachments: a PDF, a text file, a binary, an encrypted PDF and a broken image (both only named).
    const id = await srv.newSession();
    const attached = [
      await upload(id, 'memo.pdf', fs.readFileSync(path.join(FIXTURES, 'memo-scan.pdf'))),
      await upload(id, 'notes.txt', 'Meeting on Tuesday about the budget.\n'),
      await upload(id, 'blob.bin', Buffer.from([0, 1, 2, 3, 255, 254])),
      await upload(id, 'locked.pdf', fs.readFileSync(path.join(FIXTURES, 'memo-encrypted.pdf'))),
      await upload(id, 'broken.png', Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), Buffer.alloc(24)])),
    ];
    const first = await turn({ session_id: id, message: 'What do these say?', attachments: attached });
    const sent = bodyText(first);
    expect(sent).toContain('Meeting on Tuesday about the budget.');
    expect(sent).toContain(`[Attached file \\"blob.bin\\" (application/octet-stream, 6 bytes), stored as satchel://session/${id}/attachment/blob.bin]`);
    expect(sent).toContain(`stored as satchel://session/${id}/attachment/locked.pdf; its text could not be read`);
    await turn({ session_id: id, message: 'And what did page 2 say?' });

    // An extracted zip.
    const zipped = await postMultipart(srv, '/api/upload/extract', [
      { name: 'session_id', content: id },
      { name: 'file', filename: 'pack.zip', content: await yazlZip({ 'pack/readme.md': '# Pack\n', 'pack/data/x.csv': 'a,b\n1,2\n' }) },
    ]);
    expect(zipped.status, JSON.stringify(zipped.body)).toBe(200);
    const extraction = { name: 'pack.zip', path: zipped.body.dest as string, extracted: true };
    const x = bodyText(await turn({ session_id: id, message: 'What is in the pack?', attachments: [extraction] }));
    expect(x).toMatch(/Extracted archive \\"pack\.zip\\" \(2 files, stored as satchel:\/\/session\/[0-9a-f]+\/attachment\/pack[^)]*\)/);
    await turn({ session_id: id, message: 'And the csv?' });

    // Inbox arrivals: more than a turn reads (the rest named), then one more after a turn.
    const outside = fs.mkdtempSync(path.join(srv.tmp, 'arrivals-'));
    const burst = Array.from({ length: MAX_ARRIVED_FILES_READ + 2 }, (_, i) => {
      const file = path.join(outside, `scan-${i}.txt`);
      fs.writeFileSync(file, `Scanned page ${i}.`);
      return file;
    });
    const { sessionId: inbox } = await srv.desktop.addToInbox(burst);
    const arrivedRows = async () => ((await (await srv.api(`/api/session?session_id=${inbox}`)).json()) as { session: { messages: { role: string }[] } }).session.messages.filter((m) => m.role === 'system').length;
    await waitUntil(async () => (await arrivedRows()) >= 1, 'the arrival row');
    const a = bodyText(await turn({ session_id: inbox, message: 'what came in?' }));
    expect(a).toContain('Scanned page 0.');
    expect(a).toContain(`[arrived, not read in this turn: \\"scan-${MAX_ARRIVED_FILES_READ + 1}.txt\\", stored as satchel://session/${inbox}/attachment/`);
    const late = path.join(outside, 'late.txt');
    fs.writeFileSync(late, 'A late arrival.');
    const before = await arrivedRows();
    await srv.desktop.addToInbox([late]);
    await waitUntil(async () => (await arrivedRows()) > before, 'the second arrival row');
    await turn({ session_id: inbox, message: 'and now?' });

    // A workspace folder: listed, a file changed between turns, then the folder removed (no workspace, no crash).
    const proj = path.join(srv.workspace, 'proj');
    fs.mkdirSync(path.join(proj, 'src'), { recursive: true });
    fs.writeFileSync(path.join(proj, 'README.md'), '# Proj\n');
    fs.writeFileSync(path.join(proj, 'src', 'main.ts'), 'export const answer = 42;\n');
    const w = await srv.newSession({ workspace: proj });
    const listed = bodyText(await turn({ session_id: w, message: 'What is in the workspace?' }));
    expect(listed).toContain('The conversation has a workspace \\"proj\\" (2 files):\\n- README.md (7 bytes)\\n- src/main.ts (26 bytes)');
    expect(listed).toContain('export const answer = 42;');
    fs.writeFileSync(path.join(proj, 'src', 'main.ts'), 'export const answer = 43;\n');
    const changed = bodyText(await turn({ session_id: w, message: 'What changed?' }));
    expect(changed).toContain('export const answer = 43;');
    fs.rmSync(proj, { recursive: true });
    const gone = await turn({ session_id: w, message: 'Is it still there?' });
    expect(bodyText(gone)).not.toContain('The conversation has a workspace');

    // Every body, every turn: none names the state folder, the attachment folder, the workspace or the home folder.
    const forbidden = [srv.tmp, srv.stateDir, path.join(srv.stateDir, 'attachments'), srv.workspace, proj, outside, home];
    const bodies = everyBody();
    expect(bodies.length).toBeGreaterThanOrEqual(9);
    for (const r of bodies) {
      const text = bodyText(r);
      for (const p of forbidden) expect(text.includes(p), `${r.path} names ${p}: ${text.slice(Math.max(0, text.indexOf(p) - 120), text.indexOf(p) + p.length + 40)}`).toBe(false);
    }
  });
});
