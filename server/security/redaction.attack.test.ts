// Attacks on the redaction projections: a value sent verbatim must be one the server made. A message may carry
// an extracted archive as {name, path: its folder, extracted: true}; `name` is the client's, so a token put there
// would come back unmasked in GET /api/session and the event streams if it were sent as it came. The name is kept
// only when it is the archive that folder was extracted from; otherwise the folder's own name is shown.
import { describe, expect, it } from 'vitest';
import { yazlZip } from '../archive/testing/fixtures.js';
import { postMultipart } from '../testing/harness.js';
import { testServerForFile } from '../testing/per-file-server.js';

const SECRET = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';

const srv = testServerForFile();

async function extracted(id: string, filename: string): Promise<string> {
  const res = await postMultipart(srv, '/api/upload/extract', [
    { name: 'session_id', content: id },
    { name: 'file', filename, content: await yazlZip({ 'a.txt': Buffer.from('a') }) },
  ]);
  expect(res.status).toBe(200);
  return res.body.dest as string;
}

async function send(id: string, attachment: Record<string, unknown>): Promise<string> {
  const res = await srv.json('/api/session/message', { session_id: id, text: 'see attached', attachments: [attachment] });
  expect(res.status).toBe(200);
  return srv.api(`/api/session?session_id=${id}`).then((r) => r.text());
}

describe('an extracted archive in a message', () => {
  it('a token given as its name does not come back unmasked', async () => {
    const id = await srv.newSession();
    const dest = await extracted(id, 'bundle.zip');
    const stored = await send(id, { name: `${SECRET}.zip`, path: dest, extracted: true, files: 1 });
    expect(stored).not.toContain(SECRET);
    expect(JSON.parse(stored).session.messages.at(-1).attachments[0]).toMatchObject({ name: 'bundle', path: dest, extracted: true });
  });

  it('the archive it came from keeps its name, also a token-like one (the server wrote that folder)', async () => {
    const id = await srv.newSession();
    const dest = await extracted(id, 'sk-learn-cheatsheet.zip');
    const again = await extracted(id, 'sk-learn-cheatsheet.zip');
    for (const folder of [dest, again]) {
      const stored = JSON.parse(await send(id, { name: 'sk-learn-cheatsheet.zip', path: folder, extracted: true }));
      expect(stored.session.messages.at(-1).attachments[0]).toMatchObject({ name: 'sk-learn-cheatsheet.zip', path: folder });
    }
    // A name the browser shows before sanitizing (a space) is the same archive.
    const spaced = await extracted(id, 'my report.zip');
    const stored = JSON.parse(await send(id, { name: 'my report.zip', path: spaced, extracted: true }));
    expect(stored.session.messages.at(-1).attachments[0].name).toBe('my report.zip');
  });
});
