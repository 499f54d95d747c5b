// Integration tests of the server core over real loopback sockets.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type TestServer } from './testing/harness.js';
import { testServerForFile } from './testing/per-file-server.js';

const srv = testServerForFile();

describe('robustness of the read-only routes', () => {
  it('answers a malformed percent-escape in a static path with 404, not 500', async () => {
    const res = await fetch(`${srv.origin}/%E0%A4%A`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: 'Not found' });
  });

  it('refuses to preview a FIFO without blocking the server (four of them used to stall every file operation)', async () => {
    const id = await srv.newSession();
    const fifo = path.join(srv.workspace, 'pipe');
    execFileSync('mkfifo', [fifo]);
    await fs.writeFile(path.join(srv.workspace, 'plain.txt'), 'plain');
    try {
      const answers = await Promise.all(
        Array.from({ length: 5 }, () => srv.api(`/api/workspace/file?session_id=${id}&path=pipe`, { signal: AbortSignal.timeout(5000) })),
      );
      for (const res of answers) {
        expect(res.status).toBe(400);
        expect(await res.json()).toEqual({ error: 'Not a file' });
      }
      const plain = await srv.api(`/api/workspace/file?session_id=${id}&path=plain.txt`, { signal: AbortSignal.timeout(5000) });
      expect(await plain.text()).toBe('plain');
    } finally {
      await fs.rm(fifo, { force: true });
    }
  });

  it('refuses a folder inside a system directory as a workspace', async () => {
    for (const dir of ['/etc/ssh', '/usr/bin']) {
      const res = await srv.json('/api/workspaces/add', { path: dir });
      expect(res.status, dir).toBe(400);
      expect(await res.json()).toEqual({ error: 'A system directory cannot be a workspace' });
      expect((await srv.json('/api/session/new', { workspace: dir })).status).toBe(400);
    }
  });
});
