// GET /api/workspace/list and /api/workspace/file, server side: hidden entries only with
// `hidden=1`, credential stores never, and a refused path answers exactly like a missing one.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/harness.js';

let srv: TestServer;
let ws: string;
let session: string;
const NOT_FOUND = { status: 404, body: { error: 'Not found' } };

beforeAll(async () => {
  srv = await startTestServer();
  ws = await fs.realpath(srv.workspace);
  session = await srv.newSession();
  const files: Record<string, string> = {
    'visible.txt': 'visible',
    '.env': 'dotenv',
    '.hidden-dir/inner.txt': 'inner',
    'sub/.dotfile': 'dot in sub',
    'sub/plain.txt': 'plain',
    '.ssh/id_ed25519': 'private key',
    '.SSH-upper/x': 'not a credential store, just hidden',
    '.AWS/credentials': 'aws, upper case',
    '.gnupg/pubring.kbx': 'keyring',
    '.config/gcloud/credentials.db': 'gcloud',
    '.config/app/settings.json': 'settings',
    '.netrc': 'machine example.com',
  };
  for (const [rel, content] of Object.entries(files)) {
    await fs.mkdir(path.dirname(path.join(ws, rel)), { recursive: true });
    await fs.writeFile(path.join(ws, rel), content);
  }
  await fs.symlink(path.join(ws, '.ssh', 'id_ed25519'), path.join(ws, 'innocent.txt'));
  await fs.symlink(path.join(ws, '.hidden-dir'), path.join(ws, 'shown-dir'));
  await fs.symlink(path.join(srv.tmp), path.join(ws, 'out-link'));
});
afterAll(async () => {
  await srv.stop();
});

async function get(route: 'list' | 'file', rel: string, hidden = false) {
  const res = await srv.api(`/api/workspace/${route}?session_id=${session}&path=${encodeURIComponent(rel)}${hidden ? '&hidden=1' : ''}`);
  const text = await res.text();
  return { status: res.status, body: res.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : text };
}

async function names(rel: string, hidden = false): Promise<string[]> {
  const res = await get('list', rel, hidden);
  expect(res.status, rel).toBe(200);
  return (res.body.entries as { name: string }[]).map((e) => e.name).sort();
}

describe('listing', () => {
  it('leaves hidden entries out unless hidden=1, and credential stores out always', async () => {
    expect(await names('')).toEqual(['sub', 'visible.txt']);
    expect(await names('', true)).toEqual(['.SSH-upper', '.config', '.env', '.hidden-dir', 'sub', 'visible.txt']);
    expect(await names('sub')).toEqual(['plain.txt']);
    expect(await names('sub', true)).toEqual(['.dotfile', 'plain.txt']);
    expect(await names('.config', true)).toEqual(['app']);
  });

  it('answers a hidden folder like a missing one without hidden=1, and a credential store always', async () => {
    expect(await get('list', '.hidden-dir')).toEqual(NOT_FOUND);
    expect(await get('list', 'no-such-dir')).toEqual(NOT_FOUND);
    expect(await names('.hidden-dir', true)).toEqual(['inner.txt']);
    for (const store of ['.ssh', '.AWS', '.gnupg', '.config/gcloud']) expect(await get('list', store, true), store).toEqual(NOT_FOUND);
    // Reached through a symlink with an ordinary name, the real path still decides.
    expect(await get('list', 'shown-dir')).toEqual(NOT_FOUND);
    expect(await names('shown-dir', true)).toEqual(['inner.txt']);
  });
});

describe('preview', () => {
  it('serves hidden files only with hidden=1', async () => {
    expect(await get('file', 'visible.txt')).toEqual({ status: 200, body: 'visible' });
    expect(await get('file', '.env')).toEqual(NOT_FOUND);
    expect(await get('file', '.env', true)).toEqual({ status: 200, body: 'dotenv' });
    expect(await get('file', '.hidden-dir/inner.txt')).toEqual(NOT_FOUND);
    expect(await get('file', 'shown-dir/inner.txt')).toEqual(NOT_FOUND);
    expect(await get('file', 'shown-dir/inner.txt', true)).toEqual({ status: 200, body: 'inner' });
    expect(await get('file', '.SSH-upper/x', true)).toEqual({ status: 200, body: 'not a credential store, just hidden' });
  });

  it('never serves a credential store, however it is reached, with the answer of a missing file', async () => {
    for (const rel of ['.ssh/id_ed25519', '.AWS/credentials', '.gnupg/pubring.kbx', '.config/gcloud/credentials.db', '.netrc', 'innocent.txt']) {
      expect(await get('file', rel, true), rel).toEqual(NOT_FOUND);
    }
    expect(await get('file', 'missing.txt', true)).toEqual(NOT_FOUND);
    expect(await get('file', '.config/app/settings.json', true)).toEqual({ status: 200, body: 'settings' });
  });

  it('still refuses paths that leave the workspace with 403', async () => {
    expect(await get('file', '../outside.txt')).toEqual({ status: 403, body: { error: 'Path escapes workspace' } });
    expect(await get('file', 'out-link/state')).toEqual({ status: 403, body: { error: 'Path escapes workspace' } });
    expect(await get('list', 'out-link')).toEqual({ status: 403, body: { error: 'Path escapes workspace' } });
    expect(await get('file', 'sub')).toEqual({ status: 400, body: { error: 'Not a file' } });
    expect(await get('list', 'visible.txt')).toEqual({ status: 400, body: { error: 'Not a directory' } });
  });
});
