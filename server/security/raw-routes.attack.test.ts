// Attacks on the preview and raw-bytes routes (GET /api/{workspace,attachment}/{preview,raw}): an attachment
// name that reaches another session's folder or the state directory, symlinks planted in the attachment
// folder, another profile's session, no token or a cross-site request; what a served file may become in a
// browser (HTML or SVG by name or bytes, header injection through a file name), and text leaving unredacted.
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPng } from '../../e2e/helpers/png.js';
import { postMultipart, startTestServer, TEST_TOKEN, type TestServer } from '../testing/harness.js';

const SECRET = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';
const png = buildPng(2, 2, () => [0, 0, 0]);

let srv: TestServer;
let ws: string;
let mine: string;
let theirs: string;
let otherProfile: string;
let attachments: string;

beforeAll(async () => {
  srv = await startTestServer();
  ws = await fs.realpath(srv.workspace);
  mine = await srv.newSession();
  theirs = await srv.newSession();
  otherProfile = await srv.newSession({ profile: 'work' });
  for (const [id, name] of [
    [mine, 'mine.png'],
    [theirs, 'theirs.png'],
  ] as const) {
    const res = await postMultipart(srv, '/api/upload', [
      { name: 'session_id', content: id },
      { name: 'file', filename: name, content: png },
    ]);
    expect(res.status).toBe(200);
  }
  attachments = path.join(srv.stateDir, 'attachments');
  // Planted by a local process: links in my attachment folder to the other session's and to the state dir.
  await fs.symlink(path.join(attachments, theirs), path.join(attachments, mine, 'to-theirs'));
  await fs.symlink(path.join(attachments, theirs, 'theirs.png'), path.join(attachments, mine, 'theirs-link.png'));
  await fs.symlink(srv.stateDir, path.join(attachments, mine, 'state'));
  await fs.writeFile(path.join(ws, 'page.html'), Buffer.concat([Buffer.from('<html><script>alert(1)</script>'), Buffer.from([0, 0xff])]));
  await fs.writeFile(path.join(ws, 'binary.svg'), Buffer.concat([Buffer.from('<svg onload="alert(1)">'), Buffer.from([0, 0xff])]));
  await fs.writeFile(path.join(ws, 'evil.svg'), `<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`);
  await fs.writeFile(path.join(ws, 'secret.txt'), `token ${SECRET}`);
  await fs.writeFile(path.join(ws, 'secret.png'), `token ${SECRET}`);
  await fs.writeFile(path.join(ws, 'a\r\nSet-Cookie: x=1.bin'), Buffer.from([0, 1, 2]));
});
afterAll(async () => {
  await srv.stop();
});

const get = (route: string, params: Record<string, string>, init: RequestInit = {}) => srv.api(`${route}?${new URLSearchParams(params)}`, init);

describe('attachment lookup stays inside the session', () => {
  it("another session's file by ../, absolute path, or a planted symlink is refused", async () => {
    for (const name of [`../${theirs}/theirs.png`, path.join(attachments, theirs, 'theirs.png'), 'to-theirs/theirs.png', 'theirs-link.png', 'state/settings.json', '..', '.']) {
      for (const route of ['/api/attachment/raw', '/api/attachment/preview']) {
        const res = await get(route, { session_id: mine, name });
        expect([400, 403, 404], `${route} ${name}`).toContain(res.status);
        expect(res.headers.get('content-type'), `${route} ${name}`).toMatch(/^application\/json/);
      }
    }
    // The control: my own file is served.
    expect((await get('/api/attachment/raw', { session_id: mine, name: 'mine.png' })).status).toBe(200);
  });

  it("another profile's session, an unknown or malformed session id: 404, never a 500", async () => {
    for (const session_id of [otherProfile, 'f'.repeat(32), '../x', '', 'a'.repeat(5000)]) {
      const res = await get('/api/attachment/raw', { session_id, name: 'mine.png' });
      expect([400, 404], session_id.slice(0, 20)).toContain(res.status);
    }
  });

  it('hidden=1 does not open hidden names among attachments', async () => {
    await fs.writeFile(path.join(attachments, mine, '.hidden.png'), png);
    expect((await get('/api/attachment/raw', { session_id: mine, name: '.hidden.png', hidden: '1' })).status).toBe(404);
  });
});

describe('access', () => {
  it('no token: 401; a token in the query string is not accepted', async () => {
    const url = `${srv.origin}/api/workspace/raw?${new URLSearchParams({ session_id: mine, path: 'evil.svg' })}`;
    expect((await fetch(url)).status).toBe(401);
    expect((await fetch(`${url}&token=${TEST_TOKEN}`)).status).toBe(401);
  });

  it('a DNS-rebinding Host is refused before the file is touched', async () => {
    const text = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(srv.port, '127.0.0.1', () => {
        socket.end(`GET /api/attachment/raw?session_id=${mine}&name=mine.png HTTP/1.1\r\nHost: attacker.example\r\nAuthorization: Bearer ${TEST_TOKEN}\r\nConnection: close\r\n\r\n`);
      });
      let out = '';
      socket.on('data', (c) => (out += c.toString('latin1')));
      socket.on('end', () => resolve(out));
      socket.on('error', reject);
    });
    expect(text.startsWith('HTTP/1.1 403')).toBe(true);
    expect(text).not.toContain('\x89PNG');
  });
});

describe('what a served file can become', () => {
  it('an SVG is sandboxed, never sniffed, and a download on request', async () => {
    const res = await get('/api/workspace/raw', { session_id: mine, path: 'evil.svg' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/svg+xml');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toMatch(/(^|, )sandbox;/);
    expect(res.headers.get('content-security-policy')).not.toMatch(/allow-scripts/);
    const dl = await get('/api/workspace/raw', { session_id: mine, path: 'evil.svg', download: '1' });
    expect(dl.headers.get('content-disposition')).toMatch(/^attachment;/);
  });

  it('HTML, or an .svg that is not text, is never served as a page or an image', async () => {
    for (const name of ['page.html', 'binary.svg']) {
      const res = await get('/api/workspace/raw', { session_id: mine, path: name });
      expect(res.status, name).toBe(200);
      expect(res.headers.get('content-type'), name).toBe('application/octet-stream');
      expect(res.headers.get('content-disposition'), name).toMatch(/^attachment;/);
    }
  });

  it('a file name with CR LF cannot add a header', async () => {
    const res = await get('/api/workspace/raw', { session_id: mine, path: 'a\r\nSet-Cookie: x=1.bin' });
    expect(res.status).toBe(200);
    expect(res.headers.get('set-cookie')).toBeNull();
    expect(res.headers.get('content-disposition')).not.toMatch(/[\r\n]/);
  });

  it('text never leaves raw, whatever its name says: 415, and its preview is redacted', async () => {
    for (const name of ['secret.txt', 'secret.png']) {
      const res = await get('/api/workspace/raw', { session_id: mine, path: name });
      expect(res.status, name).toBe(415);
      expect(await res.text(), name).not.toContain(SECRET);
      const preview = await get('/api/workspace/preview', { session_id: mine, path: name });
      const body = await preview.text();
      expect(body, name).not.toContain(SECRET);
    }
  });

  it('text in a legacy encoding or UTF-16 without a mark is text too: a download of it is refused, its preview redacted', async () => {
    // A Latin-1 log, an Excel (Windows-1252) CSV, a mark-less UTF-16 file and a Shift_JIS log, each holding a
    // key: once called binary, so served raw with the key in it.
    const files: Record<string, Buffer> = {
      'server.log': Buffer.from(`2026-11-26 INFO Jürgen angemeldet, Größe 12 kB, token ${SECRET}\n`, 'latin1'),
      'prices.csv': Buffer.from(`Café;3,50 \x80;\x93très bon\x94;${SECRET}\r\n`, 'latin1'),
      'wide.txt': Buffer.from(`Müsli notes, token ${SECRET}`, 'utf16le'),
      // "ログ: ユーザー" in Shift_JIS (iconv), not recognized: text decoded garbled, its ASCII (the key) intact for the redactor.
      'app.log': Buffer.concat([Buffer.from('838d834f3a208386815b8355815b', 'hex'), Buffer.from(` token ${SECRET} Jürgen\n`, 'latin1')]),
    };
    for (const [name, bytes] of Object.entries(files)) await fs.writeFile(path.join(ws, name), bytes);
    const upload = await postMultipart(srv, '/api/upload', [
      { name: 'session_id', content: mine },
      { name: 'file', filename: 'attached.log', content: files['server.log']! },
    ]);
    expect(upload.status).toBe(200);
    const leaks = (body: Buffer) => body.toString('latin1').includes(SECRET) || body.toString('utf16le').includes(SECRET) || body.toString('utf8').includes(SECRET);
    const requests = [
      ...Object.keys(files).map((name) => ['/api/workspace', { session_id: mine, path: name }] as const),
      ['/api/attachment', { session_id: mine, name: 'attached.log' }] as const,
    ];
    for (const [base, params] of requests) {
      const what = JSON.stringify(params);
      for (const query of [params, { ...params, download: '1' }]) {
        const res = await get(`${base}/raw`, query);
        expect(res.status, what).toBe(415);
        expect(leaks(Buffer.from(await res.arrayBuffer())), what).toBe(false);
      }
      const preview = await get(`${base}/preview`, params);
      const body = (await preview.json()) as { kind: string; text: string };
      expect(body.kind, what).toBe('text');
      expect(body.text, what).toMatch(/Jürgen|très|Müsli/);
      expect(body.text, what).not.toContain(SECRET);
    }
  });
});
