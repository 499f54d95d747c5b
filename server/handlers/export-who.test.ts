// Issue 38, item 5: an export says who the conversation was with (its model, system prompt, connection by name,
// folder by name) and an import restores each where this machine has it, says which connection it lacks, marks
// every imported conversation and says "(imported)" in a title the profile already has.
import { describe, expect, it } from 'vitest';
import { yazlZip } from '../archive/testing/fixtures.js';
import { IMPORTED_MARK, missingAttachment } from '../export/read-export.js';
import { postMultipart } from '../testing/harness.js';
import { testServerForFile } from '../testing/per-file-server.js';
import { storedSession } from '../testing/stored-session.js';

const srv = testServerForFile({ maxUploadBytes: 8 * 1024 * 1024 });

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function post(pathname: string, body: unknown, profile?: string): Promise<Json> {
  const res = await srv.api(pathname, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'Content-Type': 'application/json', ...(profile ? { Cookie: `satchel_profile=${profile}` } : {}) },
  });
  const out = (await res.json()) as Json;
  expect([pathname, res.status, out.error]).toEqual([pathname, 200, undefined]);
  return out;
}

const importFile = (name: string, content: Buffer | string, profile?: string) =>
  postMultipart(srv, '/api/session/import', [{ name: 'file', filename: name, content }], profile ? { Cookie: `satchel_profile=${profile}` } : undefined);

async function folderNamed(name: string, profile?: string): Promise<Json | undefined> {
  const res = await srv.api('/api/folders', profile ? { headers: { Cookie: `satchel_profile=${profile}` } } : {});
  return ((await res.json()) as Json).folders.find((f: Json) => f.name === name);
}

/** A conversation with its own model, system prompt, connection and folder. */
async function furnished(title: string): Promise<{ id: string; connection: string; folder: string }> {
  const connections = await post('/api/agent/connections', { name: 'Work box', base_url: 'http://127.0.0.1:9/v1', model: 'box-model' });
  const connection = connections.id as string;
  const folder = ((await folderNamed('Projects')) ?? (await post('/api/folders/new', { name: 'Projects' })).folder).id as string;
  const id = await srv.newSession();
  await post('/api/session/message', { session_id: id, text: 'Saturday: the coast' });
  await post('/api/session/rename', { session_id: id, title });
  await post('/api/session/settings', { session_id: id, model: 'gpt-weekend', system_prompt: 'Answer in one line.', connection });
  await post('/api/session/folder', { session_id: id, folder_id: folder });
  return { id, connection, folder };
}

describe('export and import say who a conversation was with', () => {
  it('exports model, system prompt, connection and folder by name; an import restores them and marks the copy', async () => {
    const { id, connection, folder } = await furnished('Plan a weekend');
    const res = await srv.api(`/api/session/export?session_id=${id}`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as Json;
    expect(doc).toMatchObject({ title: 'Plan a weekend', model: 'gpt-weekend', system_prompt: 'Answer in one line.', connection_name: 'Work box', folder: 'Projects' });
    // The connection's id is this machine's: only its name travels.
    expect(JSON.stringify(doc)).not.toContain(connection);

    const { status, body } = await importFile('plan.json', JSON.stringify(doc));
    expect(status).toBe(200);
    expect(body.missing_connections).toBeUndefined();
    const copy = body.session as Json;
    expect(copy.session_id).not.toBe(id);
    expect(copy).toMatchObject({ title: `Plan a weekend${IMPORTED_MARK}`, model: 'gpt-weekend', system_prompt: 'Answer in one line.', connection, folder });
    expect(Date.parse(copy.imported_at)).toBeGreaterThan(0);
    const stored = (await storedSession(srv.stateDir, copy.session_id))!;
    expect({ title: stored.title, connection: stored.connection, folder: stored.folder, model: stored.model }).toEqual({ title: 'Plan a weekend (imported)', connection, folder, model: 'gpt-weekend' });
    // The original is not marked.
    expect((await storedSession(srv.stateDir, id))!.imported_at).toBeUndefined();
  });

  it('names the connection this machine lacks, makes the folder again, and leaves an unused title as it was', async () => {
    const { id, connection, folder } = await furnished('Car insurance renewal');
    const doc = (await (await srv.api(`/api/session/export?session_id=${id}`)).json()) as Json;
    // Every connection of that name goes (the test before made one too, the default: another one is made so).
    const other = (await post('/api/agent/connections', { name: 'Home box', base_url: 'http://127.0.0.1:9/v1', model: 'home-model' })).id as string;
    await post('/api/agent/connections/default', { id: other });
    const all = ((await (await srv.api('/api/agent/connections')).json()) as Json).connections as Json[];
    for (const c of all.filter((c) => c.name === 'Work box')) await post('/api/agent/connections/delete', { id: c.id });
    expect(all.some((c) => c.id === connection)).toBe(true);
    await post('/api/folders/delete', { folder_id: folder });

    const { status, body } = await importFile('car.json', JSON.stringify(doc), 'other');
    expect(status).toBe(200);
    expect(body.missing_connections).toEqual(['Work box']);
    const copy = body.session as Json;
    // Another profile has no conversation of that title: the title stays, the mark is the import's time.
    expect(copy.title).toBe('Car insurance renewal');
    expect(copy.connection).toBeUndefined();
    expect(copy.model).toBe('gpt-weekend');
    const made = (await folderNamed('Projects', 'other'))!;
    expect(copy.folder).toBe(made.id);
    expect(made.count).toBe(1);
    expect(Date.parse(copy.imported_at)).toBeGreaterThan(0);
  });

  it('an "Export all" archive imported back: every copy marked and titled "(imported)", in its folder', async () => {
    await furnished('Read the lease');
    const archive = Buffer.from(await (await srv.api('/api/sessions/export')).arrayBuffer());
    const { status, body } = await importFile('all.zip', archive);
    expect(status).toBe(200);
    const made = body.sessions as Json[];
    expect(made.length).toBeGreaterThan(1);
    for (const s of made) {
      expect(s.title.endsWith(IMPORTED_MARK)).toBe(true);
      expect(Date.parse(s.imported_at)).toBeGreaterThan(0);
    }
    const lease = made.find((s) => s.title === `Read the lease${IMPORTED_MARK}`)!;
    expect(lease.folder).toBe((await folderNamed('Projects'))!.id);
  });

  it('the list\'s Export of the selected (session_ids) carries the same: imported back, each copy has its model, prompt, connection and folder', async () => {
    const one = await furnished('Pack for the coast');
    const two = await furnished('Book the ferry');
    const res = await srv.api(`/api/sessions/export?session_ids=${one.id},${two.id}`);
    expect(res.status).toBe(200);
    const { status, body } = await importFile('chosen.zip', Buffer.from(await res.arrayBuffer()));
    expect(status).toBe(200);
    expect(body.missing_connections).toBeUndefined();
    const made = body.sessions as Json[];
    expect(made.map((s) => s.title).sort()).toEqual([`Book the ferry${IMPORTED_MARK}`, `Pack for the coast${IMPORTED_MARK}`]);
    // Each furnished() made a connection named "Work box": the copy's is one of that name (a name is what travels).
    const workBoxes = (((await (await srv.api('/api/agent/connections')).json()) as Json).connections as Json[]).filter((c) => c.name === 'Work box').map((c) => c.id);
    expect(workBoxes).toContain(one.connection);
    for (const s of made) {
      const stored = (await storedSession(srv.stateDir, s.session_id))!;
      expect({ model: stored.model, system_prompt: stored.system_prompt, folder: stored.folder }).toEqual({ model: 'gpt-weekend', system_prompt: 'Answer in one line.', folder: two.folder });
      expect(workBoxes).toContain(stored.connection);
      expect(Date.parse(stored.imported_at!)).toBeGreaterThan(0);
    }
  });

  it('a failed import leaves no folder it made', async () => {
    const good = { satchel_export: 1, title: 'Good', folder: 'Ghost folder', messages: [{ role: 'user', content: 'fine' }] };
    const bad = { satchel_export: 1, title: 'Bad', folder: 'Ghost folder', messages: [{ role: 'user', content: 'x', attachments: [{ kind: 'file', path: 'attachments/gone.txt' }] }] };
    const zip = await yazlZip({
      '2026-01-01 Good 111111111111/conversation.json': JSON.stringify(good),
      '2026-01-02 Bad 222222222222/conversation.json': JSON.stringify(bad),
    });
    const { status, body } = await importFile('x.zip', zip);
    expect([status, body]).toEqual([400, { error: `2026-01-02 Bad 222222222222: ${missingAttachment('attachments/gone.txt')}` }]);
    expect(await folderNamed('Ghost folder')).toBeUndefined();
  });

  it('refuses a model or system prompt longer than Satchel keeps', async () => {
    const long = await importFile('x.json', JSON.stringify({ satchel_export: 1, title: 'T', system_prompt: 'x'.repeat(20_001), messages: [] }));
    expect([long.status, long.body]).toEqual([400, { error: 'This export cannot be imported: its system prompt is longer than Satchel keeps (20000 characters).' }]);
  });
});
