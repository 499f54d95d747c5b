// Workspace files and stored attachments preview by kind. GET /api/workspace/preview and
// /api/attachment/preview describe a file (kind from its bytes, text decoded and redacted, Office Markdown, PDF
// text); GET /api/workspace/raw and /api/attachment/raw serve image and binary bytes with an honest type that
// cannot run as a page; GET /api/workspace/file answers text only. The walking rules stay: no escape, no
// symlink out, no special file, hidden only when asked, credential stores never.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPng } from '../../e2e/helpers/png.js';
import { buildDocx, wPara, wRun } from '../office/testing/fixtures.js';
import { postMultipart, startTestServer, type TestServer } from '../testing/harness.js';

let srv: TestServer;
let ws: string;
let session: string;
const SECRET = 'sk-proj-abcdefghijklmnopqrstuvwxyz0123';
const png = buildPng(4, 3, () => [200, 30, 30]);
const jpeg = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(60, 1)]);
const gif = Buffer.concat([Buffer.from('GIF89a'), Buffer.alloc(30, 0)]);
const webp = Buffer.concat([Buffer.from('RIFF'), Buffer.from([0x20, 0, 0, 0]), Buffer.from('WEBPVP8 '), Buffer.alloc(20, 0)]);
const avif = Buffer.concat([Buffer.from([0, 0, 0, 0x1c]), Buffer.from('ftypavif'), Buffer.alloc(20, 0)]);
const svg = '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script><rect width="10" height="10"/></svg>';
const utf16 = (text: string, be: boolean) => {
  const le = Buffer.from(text, 'utf16le');
  if (be) for (let i = 0; i < le.length; i += 2) [le[i], le[i + 1]] = [le[i + 1]!, le[i]!];
  return Buffer.concat([Buffer.from(be ? [0xfe, 0xff] : [0xff, 0xfe]), le]);
};

/** A PDF made by LibreOffice from a .docx made by pandoc: the tools people make PDFs with. */
function libreOfficePdf(dir: string): Buffer {
  const md = path.join(dir, 'letter.md');
  execFileSync('sh', ['-c', `printf '%s\\n' '---' 'title: Quarterly letter' '---' '' 'Revenue grew by twelve percent.' '' 'Second page soon.' > "${md}"`]);
  execFileSync('pandoc', [md, '-o', path.join(dir, 'letter.docx')]);
  execFileSync('soffice', ['--headless', `-env:UserInstallation=file://${dir}/lo-profile`, '--convert-to', 'pdf', '--outdir', dir, path.join(dir, 'letter.docx')], { stdio: 'ignore', timeout: 120_000 });
  return execFileSync('cat', [path.join(dir, 'letter.pdf')]);
}

beforeAll(async () => {
  srv = await startTestServer();
  ws = await fs.realpath(srv.workspace);
  session = await srv.newSession();
  const lo = path.join(srv.tmp, 'lo');
  await fs.mkdir(lo);
  const files: Record<string, string | Buffer> = {
    'red.png': png,
    'photo.jpg': jpeg,
    'anim.gif': gif,
    'pic.webp': webp,
    'pic.avif': avif,
    'logo.svg': svg,
    'notes.txt': `plain UTF-8 ✓ with a key ${SECRET}`,
    'bom.txt': Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('with a mark')]),
    'le.txt': utf16('UTF-16 little ✓', false),
    'be.txt': utf16('UTF-16 big ✓', true),
    'data.bin': Buffer.from([0x00, 0x01, 0x02, 0xff, 0xfe, 0x00, 0x10]),
    'fake.png': 'just text in a .png',
    'latin1.txt': Buffer.from([0x63, 0x61, 0x66, 0xe9]), // "café" in Latin-1: not UTF-8, no mark
    'prices.csv': Buffer.from('Caf\xe9;3,50 \x80;\x93tr\xe8s bon\x94 key sk-proj-abcdefghijklmnopqrstuvwxyz0123', 'latin1'), // Excel's Windows-1252
    'report.docx': await buildDocx(wPara(wRun(`Converted now ${SECRET}`))),
    'letter.pdf': libreOfficePdf(lo),
    'broken.pdf': '%PDF-1.7\nnot really a pdf',
    '.hidden.png': png,
    'big.txt': Buffer.alloc(2 * 1024 * 1024, 'a'),
  };
  for (const [rel, content] of Object.entries(files)) await fs.writeFile(path.join(ws, rel), content);
  await fs.mkdir(path.join(ws, '.ssh'));
  await fs.writeFile(path.join(ws, '.ssh', 'id_ed25519'), 'key');
  await fs.writeFile(path.join(srv.tmp, 'outside.png'), png);
  await fs.symlink(path.join(srv.tmp, 'outside.png'), path.join(ws, 'out-link.png'));
  await fs.symlink(path.join(ws, 'red.png'), path.join(ws, 'in-link.png'));
  execFileSync('mkfifo', [path.join(ws, 'pipe.png')]);
}, 180_000);
afterAll(async () => {
  await srv.stop();
});

const q = (params: Record<string, string>) => new URLSearchParams({ session_id: session, ...params }).toString();

async function preview(rel: string, extra: Record<string, string> = {}) {
  const res = await srv.api(`/api/workspace/preview?${q({ path: rel, ...extra })}`);
  return { status: res.status, type: res.headers.get('content-type'), body: (await res.json()) as Record<string, unknown> };
}

async function raw(route: string, params: Record<string, string>, headers: Record<string, string> = {}) {
  const res = await srv.api(`${route}?${q(params)}`, { headers });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

describe('GET /api/workspace/preview', () => {
  it('tells images by their bytes: PNG, JPEG, GIF, WebP, AVIF, and SVG as an image', async () => {
    const kinds: Record<string, string> = { 'red.png': 'image/png', 'photo.jpg': 'image/jpeg', 'anim.gif': 'image/gif', 'pic.webp': 'image/webp', 'pic.avif': 'image/avif', 'logo.svg': 'image/svg+xml' };
    for (const [name, mime] of Object.entries(kinds)) {
      const res = await preview(name);
      expect(res, name).toMatchObject({ status: 200, type: 'application/json; charset=utf-8', body: { kind: 'image', mime, name, path: name, abs_path: path.join(ws, name) } });
      expect(res.body.text, name).toBeUndefined();
    }
    // A name is not a format: text in a .png is text.
    expect((await preview('fake.png')).body).toMatchObject({ kind: 'text', mime: 'text/plain', text: 'just text in a .png' });
  });

  it('decodes text as UTF-8, or UTF-8 / UTF-16 by its byte order mark, and redacts it', async () => {
    expect((await preview('notes.txt')).body).toMatchObject({ kind: 'text', encoding: 'utf-8', text: 'plain UTF-8 ✓ with a key sk-pro...0123', truncated: false });
    expect((await preview('bom.txt')).body).toMatchObject({ kind: 'text', encoding: 'utf-8-bom', text: 'with a mark' });
    expect((await preview('le.txt')).body).toMatchObject({ kind: 'text', encoding: 'utf-16le', text: 'UTF-16 little ✓' });
    expect((await preview('be.txt')).body).toMatchObject({ kind: 'text', encoding: 'utf-16be', text: 'UTF-16 big ✓' });
    const big = await preview('big.txt');
    expect(big.body).toMatchObject({ kind: 'text', truncated: true, size: 2 * 1024 * 1024 });
    expect((big.body.text as string).length).toBe(1024 * 1024);
  });

  it('decodes Windows-1252 and ISO-8859-1 text (no mark, not UTF-8), names the encoding, and redacts it', async () => {
    expect((await preview('latin1.txt')).body).toMatchObject({ kind: 'text', mime: 'text/plain', encoding: 'iso-8859-1', text: 'café' });
    expect((await preview('prices.csv')).body).toMatchObject({ kind: 'text', encoding: 'windows-1252', text: 'Café;3,50 €;“très bon” key sk-pro...0123' });
  });

  it('calls anything else binary, with its size and type', async () => {
    const abs = path.join(ws, 'data.bin');
    // With what the agent would get of it: only its name (issue 35).
    const agent = { state: 'unreadable', summary: '7 bytes the agent cannot read: only its name is sent', text: '[Attached file "data.bin" (application/octet-stream, 7 bytes)]' };
    expect((await preview('data.bin')).body).toEqual({ kind: 'binary', name: 'data.bin', path: 'data.bin', abs_path: abs, size: 7, mime: 'application/octet-stream', agent });
  });

  it('shows an Office file as its Markdown: the sidecar beside it, else converted now', async () => {
    const converted = (await preview('report.docx')).body;
    expect(converted).toMatchObject({ kind: 'office', source: 'converted', mime: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document' });
    expect(converted.text).toContain('Converted now sk-pro...0123');
    const up = await postMultipart(srv, '/api/workspace/upload', [
      { name: 'session_id', content: session },
      { name: 'path', content: 'up' },
      { name: 'file', filename: 'memo.docx', content: await buildDocx(wPara(wRun('From the sidecar'))) },
    ]);
    expect(up.status).toBe(200);
    await fs.appendFile(path.join(ws, 'up', 'memo.docx.md'), '\nEdited sidecar line');
    const fromSidecar = (await preview('up/memo.docx')).body;
    expect(fromSidecar).toMatchObject({ kind: 'office', source: 'sidecar' });
    expect(fromSidecar.text).toContain('Edited sidecar line');
  });

  it('shows a PDF made by LibreOffice by its text, pages and title; one it cannot read by a note', async () => {
    const pdf = (await preview('letter.pdf')).body;
    expect(pdf).toMatchObject({ kind: 'pdf', mime: 'application/pdf', pages: 1, title: 'Quarterly letter' });
    expect(pdf.text).toContain('Revenue grew by twelve percent.');
    expect((await preview('broken.pdf')).body).toMatchObject({ kind: 'pdf', note: 'This PDF could not be read.' });
  });

  it('keeps the walking rules: escapes 403, hidden only when asked, credential stores and special files refused', async () => {
    expect(await preview('../outside.png')).toMatchObject({ status: 403, body: { error: 'Path escapes workspace' } });
    expect(await preview('out-link.png')).toMatchObject({ status: 403, body: { error: 'Path escapes workspace' } });
    expect((await preview('in-link.png')).body).toMatchObject({ kind: 'image', path: 'red.png' });
    expect(await preview('.hidden.png')).toMatchObject({ status: 404, body: { error: 'Not found' } });
    expect((await preview('.hidden.png', { hidden: '1' })).body).toMatchObject({ kind: 'image' });
    expect(await preview('.ssh/id_ed25519', { hidden: '1' })).toMatchObject({ status: 404, body: { error: 'Not found' } });
    expect(await preview('pipe.png')).toMatchObject({ status: 400, body: { error: 'Not a file' } });
    expect(await preview('')).toMatchObject({ status: 400, body: { error: 'Not a file' } });
  });
});

describe('GET /api/workspace/raw', () => {
  it('serves an image with its type from its bytes, inline, nosniff, under a sandbox policy beside the global one', async () => {
    const res = await raw('/api/workspace/raw', { path: 'red.png' });
    expect(res.status).toBe(200);
    expect(res.bytes.equals(png)).toBe(true);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-disposition')).toBe(`inline; filename="red.png"; filename*=UTF-8''red.png`);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toMatch(/^default-src 'self'.*, sandbox; default-src 'none'/);
    expect(csp).toContain("frame-ancestors 'none'");
  });

  it('serves an SVG so that opened directly it cannot run its script: sandboxed, no script source', async () => {
    const res = await raw('/api/workspace/raw', { path: 'logo.svg' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/svg+xml');
    const own = res.headers.get('content-security-policy')!.split(', ').at(-1)!;
    expect(own.split('; ')).toEqual(expect.arrayContaining(['sandbox', "default-src 'none'"]));
    expect(own).not.toMatch(/script-src|allow-scripts/);
    expect(res.bytes.toString()).toBe(svg); // image bytes are not redacted
  });

  it('serves a binary file as a download and never a text file (text leaves only redacted)', async () => {
    const bin = await raw('/api/workspace/raw', { path: 'data.bin' });
    expect(bin.status).toBe(200);
    expect(bin.headers.get('content-type')).toBe('application/octet-stream');
    expect(bin.headers.get('content-disposition')).toMatch(/^attachment; filename="data.bin"/);
    expect((await raw('/api/workspace/raw', { path: 'red.png', download: '1' })).headers.get('content-disposition')).toMatch(/^attachment;/);
    const text = await raw('/api/workspace/raw', { path: 'notes.txt' });
    expect(text.status).toBe(415);
    expect(JSON.parse(text.bytes.toString())).toEqual({ error: 'A text file is shown as text, not served raw' });
    expect((await raw('/api/workspace/raw', { path: 'fake.png' })).status).toBe(415);
  });

  it('answers a repeated request for an unchanged file with 304, and a changed one in full', async () => {
    const first = await raw('/api/workspace/raw', { path: 'photo.jpg' });
    const etag = first.headers.get('etag')!;
    expect(first.headers.get('cache-control')).toBe('private, no-cache');
    const again = await raw('/api/workspace/raw', { path: 'photo.jpg' }, { 'If-None-Match': etag });
    expect(again.status).toBe(304);
    expect(again.bytes.length).toBe(0);
    await fs.appendFile(path.join(ws, 'photo.jpg'), Buffer.alloc(5, 2));
    const changed = await raw('/api/workspace/raw', { path: 'photo.jpg' }, { 'If-None-Match': etag });
    expect(changed.status).toBe(200);
    expect(changed.bytes.length).toBe(jpeg.length + 5);
  });

  it('keeps the walking rules', async () => {
    expect((await raw('/api/workspace/raw', { path: 'out-link.png' })).status).toBe(403);
    expect((await raw('/api/workspace/raw', { path: '../outside.png' })).status).toBe(403);
    expect((await raw('/api/workspace/raw', { path: '.hidden.png' })).status).toBe(404);
    expect((await raw('/api/workspace/raw', { path: 'pipe.png' })).status).toBe(400);
  });
});

describe('GET /api/workspace/file', () => {
  it('answers text as UTF-8 whatever its encoding, and refuses bytes that are not text', async () => {
    const le = await srv.api(`/api/workspace/file?${q({ path: 'le.txt' })}`);
    expect(le.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await le.text()).toBe('UTF-16 little ✓');
    const excel = await srv.api(`/api/workspace/file?${q({ path: 'prices.csv' })}`);
    expect(await excel.text()).toBe('Café;3,50 €;“très bon” key sk-pro...0123');
    const bin = await srv.api(`/api/workspace/file?${q({ path: 'red.png' })}`);
    expect(bin.status).toBe(415);
    expect(await bin.json()).toEqual({ error: 'Not a text file' });
  });
});

describe('attachments', () => {
  it('previews and serves a stored attachment by its name, and nothing outside the session’s folder', async () => {
    const up = await postMultipart(srv, '/api/upload', [
      { name: 'session_id', content: session },
      { name: 'file', filename: 'shot.png', content: png },
    ]);
    expect(up.status).toBe(200);
    const res = await srv.api(`/api/attachment/preview?${q({ name: 'shot.png' })}`);
    expect(await res.json()).toMatchObject({ kind: 'image', mime: 'image/png', name: 'shot.png', abs_path: up.body.path });
    const bytes = await raw('/api/attachment/raw', { name: 'shot.png' });
    expect(bytes.status).toBe(200);
    expect(bytes.headers.get('content-type')).toBe('image/png');
    expect(bytes.bytes.equals(png)).toBe(true);

    const other = await srv.newSession();
    await postMultipart(srv, '/api/upload', [
      { name: 'session_id', content: other },
      { name: 'file', filename: 'theirs.png', content: png },
    ]);
    expect((await raw('/api/attachment/raw', { name: 'theirs.png' })).status).toBe(404);
    expect((await raw('/api/attachment/raw', { name: `../${other}/theirs.png` })).status).toBe(403);
    expect((await raw('/api/attachment/raw', { name: up.body.path as string })).status).toBe(404);
    expect((await raw('/api/attachment/raw', { name: 'missing.png' })).status).toBe(404);
    expect((await raw('/api/attachment/raw', { name: 'shot.png', session_id: 'ffffffffffff' })).status).toBe(404);
  });
});
