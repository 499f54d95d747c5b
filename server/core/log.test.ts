// The logger: control characters in a logged text become visible escapes (after redaction), so a name chosen
// by a stranger cannot forge a log line; and one end-to-end run over the live server with a hostile tar.
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildTar } from '../archive/testing/tar-builder.js';
import { escapeControls, log } from './log.js';
import { multipartBody, startTestServer } from '../testing/harness.js';
import { captureLogLines } from '../testing/log-capture.js';

const LINE_HEAD = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (DEBUG|INFO|WARN|ERROR) /;
const FORGED = '2026-01-01T00:00:00.000Z ERROR forged';

const logged = captureLogLines('debug');

describe('escapeControls', () => {
  it.each([
    ['a\nb', 'a\\nb'],
    ['a\r\nb', 'a\\r\\nb'],
    ['tab\there', 'tab\\there'],
    ['\u0000', '\\x00'],
    ['bell\u0007', 'bell\\x07'],
    ['\u001b[31mred', '\\x1b[31mred'],
    ['del\u007f', 'del\\x7f'],
    ['c1 \u0085 \u009b', 'c1 \\x85 \\x9b'],
    ['ls\u2028ps\u2029', 'ls\\u2028ps\\u2029'],
    ['plain text, é ü 日本 😀', 'plain text, é ü 日本 😀'],
    ['C:\\Users\\ana', 'C:\\Users\\ana'],
  ])('%j → %j', (raw, escaped) => {
    expect(escapeControls(raw)).toBe(escaped);
  });
});

describe('log lines', () => {
  it('a logged newline cannot start a line of its own', () => {
    log.warn(`member x\n${FORGED}`, new Error(`bad\r\n${FORGED}`));
    expect(logged()).toHaveLength(1);
    expect(logged()[0]).toMatch(LINE_HEAD);
    expect(logged()[0]).toContain(`member x\\n${FORGED} Error: bad\\r\\n${FORGED}`);
    expect(logged()[0]).not.toMatch(/[\n\r\u2028\u2029]/);
  });

  it('escapes every control character and nothing else', () => {
    const controls = [...Array.from({ length: 0x20 }, (_, i) => i), ...Array.from({ length: 0x21 }, (_, i) => 0x7f + i), 0x2028, 0x2029];
    log.info(String.fromCharCode(...controls));
    const body = logged()[0]!.replace(LINE_HEAD, '');
    // eslint-disable-next-line no-control-regex
    expect(body).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
    expect(body.startsWith('\\x00\\x01')).toBe(true);
    expect(body).toContain('\\t\\n\\x0b\\x0c\\r');
    expect(body.endsWith('\\x9f\\u2028\\u2029')).toBe(true);
  });

  it('redacts before escaping: a private key spanning lines is still masked', () => {
    const pem = '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----';
    log.error(`leaked ${pem} after`);
    expect(logged()[0]).toContain('leaked [REDACTED PRIVATE KEY] after');
    expect(logged()[0]).not.toContain('MIIEvQ');
  });
});

describe('a hostile tar over the live server', () => {
  it('a member named with a newline forges no log line', async () => {
    const srv = await startTestServer();
    try {
      const session = await srv.newSession();
      const hostile = `x\n${FORGED}`;
      // The second copy is skipped as a duplicate, which the writer logs with the member's name.
      const tar = buildTar([
        { name: hostile, content: Buffer.from('one') },
        { name: hostile, content: Buffer.from('two') },
      ]);
      const boundary = 'satchelLogBoundary';
      const res = await srv.api('/api/workspace/upload', {
        method: 'POST',
        body: new Uint8Array(
          multipartBody(boundary, [
            { name: 'session_id', content: session },
            { name: 'file', filename: 'forge.tar', content: tar },
          ]),
        ),
        headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` },
      });
      expect(res.status).toBe(200);
      const captured = logged().join('\n').split(/\r\n|[\n\r\u2028\u2029]/);
      expect(captured.some((l) => l.includes('forged'))).toBe(true);
      expect(captured.filter((l) => l.startsWith(FORGED))).toEqual([]);
      for (const line of captured) expect(line).toMatch(LINE_HEAD);

      const item = (await res.json()) as { extracted: boolean; extracted_files: string[] };
      // The file exists under a name with no control character in it.
      expect(item.extracted_files).toEqual(['forge/x_2026-01-01T00:00:00.000Z ERROR forged']);
      expect(await fs.readdir(path.join(srv.workspace, 'forge'))).toEqual(['x_2026-01-01T00:00:00.000Z ERROR forged']);
    } finally {
      await srv.stop();
    }
  });
});

describe('keys in logged errors, names and paths', () => {
  const GH = 'ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8';
  const SK = 'sk-proj-A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';
  // The line issue 25 found: an archive member named after a key, in ENAMETOOLONG's message.
  const member = `notes-${GH}-${'x'.repeat(280)}.txt`;

  it.each(['debug', 'info', 'warn', 'error'] as const)('%s: no key from a message, a path, a cause, a stack or an object', (level) => {
    const err = Object.assign(new Error(`ENAMETOOLONG: name too long, open '/proc/self/fd/27/${member}'`, { cause: new Error(`upstream answered for ${SK}`) }), {
      code: 'ENAMETOOLONG',
      path: `/proc/self/fd/27/${member}`,
    });
    log[level](`extracting /home/ana/${GH}_backup.zip failed:`, err);
    log[level](err.stack);
    log[level]({ path: err.path, copy: `${SK}_copy` });
    expect(logged()).toHaveLength(3);
    const out = logged().join('\n');
    for (const key of [GH, SK]) expect(out).not.toContain(key.slice(4, 24));
    expect(logged()[0]).toContain('failed: Error: ENAMETOOLONG: name too long');
    expect(logged()[0]).toContain('; caused by Error: upstream answered for ');
  });
});
