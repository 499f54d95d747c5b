// Imports a hostile file may send (issue 33 findings 3, 8, 12) over a real server: what is refused, with which
// sentence, what is kept of what is accepted, that an export never fails on a stored value, and that an import
// the last run died in leaves nothing at the next start. The padded export's cost in time and memory is
// watched in a server process of its own (import-bounds.process.test.ts) and measured in bench/import-padded.mjs.
import fs from 'node:fs/promises';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import yauzl from 'yauzl';
import { describe, expect, it } from 'vitest';
import { yazlZip } from '../archive/testing/fixtures.js';
import { postMultipart, startTestServer, TEST_TOKEN } from '../testing/harness.js';
import { testServerForFile } from '../testing/per-file-server.js';
import { IMPORT_WORK_DIR } from './import.js';
import { UNKNOWN_TIME } from './markdown.js';
import { MAX_EXPORT_JSON_DEPTH, MAX_EXPORT_JSON_VALUES, MAX_UNKNOWN_FIELD_VALUES, tooDeep, tooManyUnknown, tooManyValues } from './parse-json.js';
import { badExport, MAX_IMPORTED_ROWS } from './read-export.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

const srv = testServerForFile({ maxUploadBytes: 64 * 1024 * 1024 });

const importFile = (filename: string, content: Buffer | string) => postMultipart(srv, '/api/session/import', [{ name: 'file', filename, content }]);
const exportDoc = (messages: unknown[], extra: Json = {}) => ({ satchel_export: 1, title: 'Imported', created_at: '2026-01-02T03:04:05.000Z', updated_at: '2026-01-02T03:04:05.000Z', messages, attachments: [], ...extra });

async function footprint(): Promise<{ sessions: string[]; folders: string[] }> {
  const list = (await (await srv.api('/api/sessions')).json()) as Json;
  const folders = await fs.readdir(path.join(srv.stateDir, 'attachments')).catch(() => [] as string[]);
  return { sessions: (list.sessions as Json[]).map((s) => s.session_id as string).sort(), folders: folders.sort() };
}

/** Every member of a zip, by name (reading it whole: a zip cut short fails here). */
async function unzip(bytes: Buffer): Promise<Map<string, string>> {
  const zip = await yauzl.fromBufferPromise(bytes, { lazyEntries: true });
  const out = new Map<string, string>();
  for (;;) {
    const entry = await new Promise<yauzl.Entry | null>((resolve, reject) => {
      zip.once('entry', resolve).once('end', () => resolve(null)).once('error', reject);
      zip.readEntry();
    });
    zip.removeAllListeners('entry').removeAllListeners('end').removeAllListeners('error');
    if (!entry) return out;
    const chunks: Buffer[] = [];
    for await (const c of await zip.openReadStreamPromise(entry)) chunks.push(c as Buffer);
    out.set(entry.fileName, Buffer.concat(chunks).toString('utf8'));
  }
}
const zipMembers = async (bytes: Buffer) => [...(await unzip(bytes)).keys()];

/** A JSON text of `count` empty objects in a list: what a padded export's unknown field holds. */
const padding = (count: number) => `[${'{},'.repeat(count - 1)}{}]`;

describe('an import is bounded before it is parsed (finding 3)', () => {
  it('a conversation with an unknown field of empty objects past the bound is 400 with the sentence, and nothing is left', async () => {
    const before = await footprint();
    const json = JSON.stringify(exportDoc([{ role: 'user', content: 'hi', timestamp: 1_767_000_000 }])).replace(/}$/, `,"padding":${padding(MAX_EXPORT_JSON_VALUES + 10)}}`);
    const zip = await yazlZip({ 'conversation.json': json });
    expect(zip.length).toBeLessThan(json.length / 50);
    const { status, body } = await importFile('padded.zip', zip);
    expect([status, body]).toEqual([400, { error: tooManyValues }]);
    // Inside an "Export all": the same sentence, naming the conversation's folder.
    const all = await yazlZip({ 'a ok/conversation.json': JSON.stringify(exportDoc([])), 'b padded/conversation.json': json });
    const second = await importFile('all.zip', all);
    expect([second.status, second.body]).toEqual([400, { error: `b padded: ${tooManyValues}` }]);
    expect(await footprint()).toEqual(before);
  });

  it('fields Satchel does not know are dropped, and refused when they hold more than their bound', async () => {
    const small = JSON.stringify(exportDoc([{ role: 'user', content: 'kept', timestamp: 1_767_000_000, extra: { a: [1, 2] } }], { note: [{}, {}] }));
    const ok = await importFile('ok.json', small);
    expect(ok.status).toBe(200);
    expect(ok.body.session.messages[0]).not.toHaveProperty('extra');
    const big = JSON.stringify(exportDoc([{ role: 'user', content: 'x', extra: JSON.parse(padding(MAX_UNKNOWN_FIELD_VALUES + 1)) }]));
    expect(await importFile('big.json', big)).toEqual({ status: 400, body: { error: tooManyUnknown } });
    // Versions are known, however many rows they hold: two earlier versions of 6,000 rows each import whole.
    const tail = (v: string) => Array.from({ length: 6_000 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `${v}${i}` }));
    const versions = await importFile('versions.json', JSON.stringify(exportDoc([{ role: 'user', content: 'now', _versions: { before: [tail('a'), tail('b')], after: [] } }])));
    expect(versions.status).toBe(200);
    expect(versions.body.session.messages[0].versions).toMatchObject({ count: 3 });
  });

  it('100,000 levels of nesting, in a known field or an unknown one, are 400 with the sentence (no stack overflow, no 500)', async () => {
    const deep = `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`;
    const inUsage = JSON.stringify(exportDoc([{ role: 'assistant', content: 'x', usage: 0 }])).replace('"usage":0', `"usage":${deep}`);
    expect(await importFile('deep.json', inUsage)).toEqual({ status: 400, body: { error: tooDeep } });
    const inUnknown = JSON.stringify(exportDoc([{ role: 'assistant', content: 'x', mine: 0 }])).replace('"mine":0', `"mine":${deep}`);
    expect(await importFile('deep2.json', inUnknown)).toEqual({ status: 400, body: { error: tooDeep } });
    // Within the bound, a known field of the wrong shape is dropped, not stored for the store's recursive walks.
    const nested = `${'{"a":'.repeat(MAX_EXPORT_JSON_DEPTH - 10)}1${'}'.repeat(MAX_EXPORT_JSON_DEPTH - 10)}`;
    const ok = await importFile('nested.json', JSON.stringify(exportDoc([{ role: 'assistant', content: 'x', reasoning: 0 }])).replace('"reasoning":0', `"reasoning":${nested}`));
    expect(ok.status).toBe(200);
    expect(ok.body.session.messages[0]).not.toHaveProperty('reasoning');
  });

  it('more rows in all versions together than the bound are refused', async () => {
    const tail = (v: number) => Array.from({ length: 10_000 }, (_, i) => ({ role: 'user', content: `${v}.${i}` }));
    const fork = { before: Array.from({ length: MAX_IMPORTED_ROWS / 10_000 }, (_, v) => tail(v)), after: [] };
    const { status, body } = await importFile('rows.json', JSON.stringify(exportDoc([{ role: 'user', content: 'now', _versions: fork }])));
    expect([status, body]).toEqual([400, { error: badExport(`it has more than ${MAX_IMPORTED_ROWS} messages in all its versions`) }]);
  });

  it('more tool calls on one row than one reply can make are refused', async () => {
    const calls = Array.from({ length: 257 }, (_, i) => ({ id: `c${i}`, function: { name: 'f', arguments: '{}' } }));
    const { status, body } = await importFile('calls.json', JSON.stringify(exportDoc([{ role: 'assistant', content: 'x', tool_calls: calls }])));
    expect([status, body]).toEqual([400, { error: badExport('message 1 has more than 256 tool calls') }]);
  });
});

describe('imported internal fields (finding 12)', () => {
  it('_error and _partial are kept only as true, error_action is dropped: no string goes out past the redactor, no button', async () => {
    const key = 'ghp_' + 'a1B2c3D4e5'.repeat(4);
    const rows = [
      { role: 'user', content: 'q', timestamp: 1_767_000_000 },
      { role: 'assistant', content: '**Error:** it failed', timestamp: 1_767_000_001, _error: key, _partial: key, error_type: 'auth_error', error_action: 'agent_settings' },
      { role: 'assistant', content: 'a real one', timestamp: 1_767_000_002, _error: true, _partial: true, error_action: 'retry' },
    ];
    const { status, body } = await importFile('internal.json', JSON.stringify(exportDoc(rows)));
    expect(status).toBe(200);
    const stored = (await (await srv.api(`/api/session?session_id=${body.session.session_id}`)).json()) as Json;
    const [, forged, flagged] = stored.session.messages as [Json, Json, Json];
    expect(JSON.stringify(stored)).not.toContain(key);
    expect(forged).not.toHaveProperty('_error');
    expect(forged).not.toHaveProperty('_partial');
    expect(forged).not.toHaveProperty('error_action');
    expect(forged.error_type).toBe('auth_error');
    expect([flagged._error, flagged._partial, flagged.error_action]).toEqual([true, true, undefined]);
  });
});

describe('imported times (finding 8)', () => {
  it('a time of 1e300 is dropped on import (the row kept without one); "Export all" is a whole zip and MCP read_session answers', async () => {
    const rows = [
      { role: 'user', content: 'far future', timestamp: 1e300 },
      { role: 'assistant', content: 'before 1970', timestamp: -5 },
      { role: 'assistant', content: 'fine', timestamp: 1_767_000_000 },
    ];
    const { status, body } = await importFile('times.json', JSON.stringify(exportDoc(rows, { created_at: '+275760-09-13T00:00:00.000Z' })));
    expect(status).toBe(200);
    const messages = body.session.messages as Json[];
    expect(messages.map((m) => m.timestamp)).toEqual([undefined, undefined, 1_767_000_000]);
    expect(messages.map((m) => m.content)).toEqual(['far future', 'before 1970', 'fine']);
    expect(body.session.created_at).not.toContain('275760');

    const all = await srv.api('/api/sessions/export');
    expect(all.status).toBe(200);
    const names = await zipMembers(Buffer.from(await all.arrayBuffer()));
    expect(names.filter((n) => n.includes(body.session.session_id as string)).map((n) => path.posix.basename(n)).sort()).toEqual(['conversation.json', 'conversation.md']);

    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(srv.origin + '/mcp'), { requestInit: { headers: { Authorization: `Bearer ${TEST_TOKEN}` } } }));
    const read = await client.callTool({ name: 'read_session', arguments: { session_id: body.session.session_id } });
    await client.close();
    expect(read.isError).toBeFalsy();
    const text = ((read.content as { text: string }[])[0]!).text;
    expect(JSON.parse(text).messages.map((m: Json) => m.text)).toEqual(['far future', 'before 1970', 'fine']);
  });
});

describe('a store that already holds a bad time (finding 8)', () => {
  it('Markdown export and MCP read_session of it work: the time prints as unknown', async () => {
    // A session file of an older Satchel, moved into the database at start as it is (db/import-json.ts).
    const other = await startTestServer();
    try {
      await other.close();
      const id = 'abcdefabcdef';
      await fs.mkdir(path.join(other.stateDir, 'sessions'), { recursive: true });
      const file = { session_id: id, title: 'Old', workspace: other.workspace, profile: 'default', created_at: '2025-01-01T00:00:00.000Z', updated_at: '2025-01-01T00:00:00.000Z', messages: [{ role: 'user', content: 'stored long ago', timestamp: 1e300 }], attachments: [] };
      await fs.writeFile(path.join(other.stateDir, 'sessions', `${id}.json`), JSON.stringify(file));
      const again = await startTestServer({ stateDir: other.stateDir, defaultWorkspace: other.workspace });
      try {
        const md = await again.api(`/api/session/export?session_id=${id}&format=md`);
        expect(md.status).toBe(200);
        const mdNames = await zipMembers(Buffer.from(await md.arrayBuffer()));
        expect(mdNames).toEqual(['conversation.md']);
        const all = await again.api('/api/sessions/export');
        const members = await unzip(Buffer.from(await all.arrayBuffer()));
        const markdown = [...members].find(([name]) => name.endsWith('conversation.md'))?.[1] ?? '';
        expect(markdown).toContain(`### You · ${UNKNOWN_TIME}\n\nstored long ago`);
        const client = new Client({ name: 'test', version: '1.0.0' });
        await client.connect(new StreamableHTTPClientTransport(new URL(again.origin + '/mcp'), { requestInit: { headers: { Authorization: `Bearer ${TEST_TOKEN}` } } }));
        const read = await client.callTool({ name: 'read_session', arguments: { session_id: id } });
        await client.close();
        expect(read.isError).toBeFalsy();
        expect(JSON.parse((read.content as { text: string }[])[0]!.text).messages[0]).toMatchObject({ text: 'stored long ago' });
        expect(JSON.parse((read.content as { text: string }[])[0]!.text).messages[0].time).toBeUndefined();
      } finally {
        await again.stop();
      }
    } finally {
      await fs.rm(other.tmp, { recursive: true, force: true });
    }
  });
});

describe('an import the last run died in (finding 3)', () => {
  it('leaves nothing at the next start: its folders go, its work folder goes, no other folder is touched', async () => {
    const first = await startTestServer();
    const stored = await first.newSession();
    const upload = await postMultipart(first, '/api/upload', [{ name: 'session_id', content: stored }, { name: 'file', filename: 'keep.txt', content: 'kept' }]);
    expect(upload.status).toBe(200);
    await first.close();
    const root = path.join(first.stateDir, 'attachments');
    // A crash after the import's commit: the stored session's folder still holds the work folder.
    await fs.mkdir(path.join(root, stored, IMPORT_WORK_DIR, 'x'), { recursive: true });
    await fs.writeFile(path.join(root, stored, IMPORT_WORK_DIR, 'x', 'conversation.json'), '{}');
    // A crash before it: a folder of no stored session, with its mark and what was unpacked and moved.
    const orphan = '0123456789ab';
    await fs.mkdir(path.join(root, orphan, IMPORT_WORK_DIR), { recursive: true });
    await fs.writeFile(path.join(root, orphan, IMPORT_WORK_DIR, 'conversation.json'), 'x'.repeat(1024));
    await fs.writeFile(path.join(root, orphan, 'moved.txt'), 'moved');
    // An import killed between making a folder and marking it: empty, of no stored session.
    await fs.mkdir(path.join(root, '111111111111'));
    // A folder of no stored session without the mark is not an import's: left as it is.
    const unmarked = 'ba9876543210';
    await fs.mkdir(path.join(root, unmarked));
    await fs.writeFile(path.join(root, unmarked, 'mine.txt'), 'mine');

    const again = await startTestServer({ stateDir: first.stateDir, defaultWorkspace: first.workspace });
    try {
      expect((await fs.readdir(root)).sort()).toEqual([stored, unmarked].sort());
      expect(await fs.readdir(path.join(root, stored))).toEqual(['keep.txt']);
      expect(await fs.readFile(path.join(root, unmarked, 'mine.txt'), 'utf8')).toBe('mine');
    } finally {
      await again.stop();
      await fs.rm(first.tmp, { recursive: true, force: true });
    }
  });

  it('an import that succeeds leaves no work folder in any folder it made', async () => {
    const zip = await yazlZip({
      'a/conversation.json': JSON.stringify({ ...exportDoc([{ role: 'user', content: 'a', attachments: [{ path: 'attachments/a.txt' }] }]), attachments: [{ path: 'attachments/a.txt' }] }),
      'a/attachments/a.txt': 'A',
      'b/conversation.json': JSON.stringify({ ...exportDoc([{ role: 'user', content: 'b', attachments: [{ path: 'attachments/b.txt' }] }]), attachments: [{ path: 'attachments/b.txt' }] }),
      'b/attachments/b.txt': 'B',
    });
    const { status, body } = await importFile('all.zip', zip);
    expect(status).toBe(200);
    for (const s of body.sessions as Json[]) expect(await fs.readdir(path.join(srv.stateDir, 'attachments', s.session_id as string))).toEqual([s.session_id === body.sessions[0].session_id ? 'a.txt' : 'b.txt']);
  });
});
