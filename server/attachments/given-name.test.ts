// Issue 38, item 4: the name a person gave a file is what the page shows, what the agent is told and what an
// export carries; the file on disk keeps the specification's safe name (spec-notes 4.3 step 4), which every route
// still takes. Over a real server, a scripted agent, the bytes on disk and an export read back.
import fs from 'node:fs/promises';
import path from 'node:path';
import yauzl from 'yauzl';
import { describe, expect, it } from 'vitest';
import { yazlZip } from '../archive/testing/fixtures.js';
import { postMultipart } from '../testing/harness.js';
import { testServerForFile } from '../testing/per-file-server.js';
import { scriptedAgent, TEST_AGENT_CONFIG } from '../testing/scripted-agent.js';
import { openSse } from '../testing/sse.js';

const agent = scriptedAgent();
const srv = testServerForFile({ agent: { streamTurn: agent.streamTurn, loadConfig: () => TEST_AGENT_CONFIG } });

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

const UNICODE = 'Résumé – Ünïcödé 日本語 файл.txt';
const UNICODE_STORED = 'Résumé___Ünïcödé_日本語_файл.txt';
const REPORT = 'Quarterly report Q3.pdf';

async function upload(id: string, filename: string, content: string | Buffer): Promise<Json> {
  const { status, body } = await postMultipart(srv, '/api/upload', [{ name: 'session_id', content: id }, { name: 'file', filename, content }]);
  expect(status, JSON.stringify(body)).toBe(200);
  return body as Json;
}

async function unzip(bytes: Buffer): Promise<Map<string, Buffer>> {
  const zip = await yauzl.fromBufferPromise(bytes, { lazyEntries: true });
  const out = new Map<string, Buffer>();
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      if (entry.fileName.endsWith('/')) return zip.readEntry();
      zip.openReadStream(entry, (err, stream) => {
        if (err) return reject(err);
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          out.set(entry.fileName, Buffer.concat(chunks));
          zip.readEntry();
        });
      });
    });
    zip.on('end', resolve);
    zip.on('error', reject);
    zip.readEntry();
  });
  return out;
}

describe('a file keeps the name the person gave it (issue 38, item 4)', () => {
  it('the upload answers the stored safe name and the given name; the bytes are stored under the safe one', async () => {
    const id = await srv.newSession();
    const report = await upload(id, REPORT, '%PDF-1.4 not really');
    expect(report).toMatchObject({ filename: 'Quarterly_report_Q3.pdf', display_name: REPORT });
    expect(path.basename(report.path)).toBe('Quarterly_report_Q3.pdf');
    const unicode = await upload(id, UNICODE, 'the text of the résumé\n');
    expect(unicode).toMatchObject({ filename: UNICODE_STORED, display_name: UNICODE });
    expect(await fs.readFile(unicode.path, 'utf8')).toBe('the text of the résumé\n');
    // A second file of the same name: both names get the same suffix, so the two are never called alike.
    const again = await upload(id, UNICODE, 'a second one\n');
    expect(again).toMatchObject({ filename: 'Résumé___Ünïcödé_日本語_файл-1.txt', display_name: 'Résumé – Ünïcödé 日本語 файл-1.txt' });
    // A name that is already safe has no second name: the wire stays the specification's.
    expect(await upload(id, 'notes.txt', 'n\n')).not.toHaveProperty('display_name');
    // What cannot be in one file's name anywhere is replaced even in the shown name: folders, `\`, control and
    // bidirectional characters (`a‮txt.exe` would read as `aexe.txt`), a Windows device name.
    expect((await upload(id, 'some/dir/Team notes.md', '# t\n')).display_name).toBe('Team notes.md');
    expect((await upload(id, 'evil name\\x.txt', 'e\n')).display_name).toBe('evil name_x.txt');
    expect((await upload(id, 'photo \u202Egnp.exe', 'p\n')).display_name).toBe('photo _gnp.exe');
    expect((await upload(id, 'CON notes.txt', 'c\n'))).toMatchObject({ filename: 'CON_notes.txt', display_name: 'CON notes.txt' });
    expect((await upload(id, 'con .txt', 'c\n')).display_name).toBe('_con .txt');
    // The session's record (what a reload shows) carries it too.
    const session = ((await (await srv.api(`/api/session?session_id=${id}`)).json()) as Json).session as Json;
    expect(session.attachments.find((a: Json) => a.path === unicode.path)).toMatchObject({ filename: UNICODE_STORED, display_name: UNICODE });
  });

  it('the agent is told the given name; the Satchel URI it may ask for names the stored file', async () => {
    const id = await srv.newSession();
    const unicode = await upload(id, UNICODE, 'the text of the résumé\n');
    const turnsBefore = agent.turns.length;
    const res = await srv.json('/api/chat/start', { session_id: id, message: 'Read this', attachments: [unicode] });
    expect(res.status).toBe(200);
    const { stream_id: streamId } = (await res.json()) as Json;
    const upstream = await agent.turn(turnsBefore);
    const sent = JSON.stringify(upstream.request.messages.at(-1));
    expect(sent).toContain(`\\"${UNICODE}\\"`);
    expect(sent).not.toContain(UNICODE_STORED);
    upstream.push({ kind: 'token', text: 'Read it.' });
    upstream.finish();
    await (await openSse(srv.port, `/api/chat/stream?stream_id=${streamId}`)).ended();
    // The row the turn stored keeps it, as the thread's chip shows it after a reload.
    const session = ((await (await srv.api(`/api/session?session_id=${id}`)).json()) as Json).session as Json;
    expect(session.messages[0].attachments[0]).toMatchObject({ kind: 'file', filename: UNICODE_STORED, display_name: UNICODE });
  });

  it('an export carries the given name (JSON and Markdown), and its import keeps it', async () => {
    const id = await srv.newSession();
    const report = await upload(id, REPORT, '%PDF-1.4 not really');
    expect((await srv.json('/api/session/message', { session_id: id, text: 'the report', attachments: [report] })).status).toBe(200);
    const zipped = Buffer.from(await (await srv.api(`/api/session/export?session_id=${id}&format=json`)).arrayBuffer());
    const members = await unzip(zipped);
    const json = JSON.parse(members.get('conversation.json')!.toString('utf8')) as Json;
    const markdown = await unzip(Buffer.from(await (await srv.api(`/api/session/export?session_id=${id}&format=md`)).arrayBuffer()));
    expect(json.attachments).toEqual([expect.objectContaining({ filename: 'Quarterly_report_Q3.pdf', display_name: REPORT, path: 'attachments/Quarterly_report_Q3.pdf' })]);
    expect(json.messages[0].attachments[0]).toMatchObject({ display_name: REPORT });
    expect(markdown.get('conversation.md')!.toString('utf8')).toContain(`- [${REPORT}](attachments/Quarterly_report_Q3.pdf)`);
    expect(members.has('attachments/Quarterly_report_Q3.pdf')).toBe(true);

    const { status, body } = await postMultipart(srv, '/api/session/import', [{ name: 'file', filename: 'export.zip', content: zipped }]);
    expect(status, JSON.stringify(body)).toBe(200);
    const copy = (body as Json).session as Json;
    expect(copy.attachments).toEqual([expect.objectContaining({ filename: 'Quarterly_report_Q3.pdf', display_name: REPORT })]);
    expect(copy.messages[0].attachments[0]).toMatchObject({ filename: 'Quarterly_report_Q3.pdf', display_name: REPORT });
  });

  it('an imported given name is held to the same rule (a file may say anything)', async () => {
    const id = await srv.newSession();
    const report = await upload(id, 'plain.txt', 'p\n');
    expect((await srv.json('/api/session/message', { session_id: id, text: 'x', attachments: [report] })).status).toBe(200);
    const members = await unzip(Buffer.from(await (await srv.api(`/api/session/export?session_id=${id}&format=json`)).arrayBuffer()));
    const json = JSON.parse(members.get('conversation.json')!.toString('utf8')) as Json;
    json.attachments[0].display_name = '../../etc/pass\u0000wd \u202Etxt';
    const { status, body } = await postMultipart(srv, '/api/session/import', [{ name: 'file', filename: 'x.zip', content: await yazlZip({ ...Object.fromEntries(members), 'conversation.json': JSON.stringify(json) }) }]);
    expect(status, JSON.stringify(body)).toBe(200);
    expect(((body as Json).session as Json).attachments[0]).toMatchObject({ filename: 'plain.txt', display_name: 'pass_wd _txt' });
  });
});
