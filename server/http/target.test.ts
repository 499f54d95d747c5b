// Request targets that are not URLs (target.ts): every one gets exactly one answer and the server lives on.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { converse } from '../testing/harness.js';
import { testServerForFile } from '../testing/per-file-server.js';
import { SECURITY_HEADERS } from '../testing/security-headers.js';

const srv = testServerForFile({ headersTimeoutMs: 400, bodyIdleTimeoutMs: 400 });

const HOST = () => `127.0.0.1:${srv.port}`;
async function healthy(): Promise<void> {
  const res = await fetch(`${srv.origin}/health`, { signal: AbortSignal.timeout(5000) });
  expect(res.status).toBe(200);
}

describe('request targets that are not URLs', () => {
  // Each of these once made `new URL` throw before the handler's try, and Node exited.
  it.each(['//%zz', '//[', '//a:99999/', 'http://%zz/', 'http://[/', '*', 'example.com:443', 'http://user:pw@127.0.0.1/health'])(
    'answers GET %s without a 5xx and keeps serving',
    async (target) => {
      const { responses } = await converse(srv.port, [`GET ${target} HTTP/1.1\r\nHost: ${HOST()}\r\n\r\n`]);
      expect(responses).toHaveLength(1);
      const [res] = responses;
      expect(res!.status).toBeGreaterThanOrEqual(400);
      expect(res!.status).toBeLessThan(500);
      for (const name of SECURITY_HEADERS) expect(res!.header(name), name).toBeTruthy();
      expect(res!.header('content-type')).toBe('application/json; charset=utf-8');
      await healthy();
    },
  );

  it('says exactly what was wrong with an unparseable absolute target', async () => {
    const { responses } = await converse(srv.port, [`GET http://[/ HTTP/1.1\r\nHost: ${HOST()}\r\n\r\n`]);
    expect(responses[0]!.status).toBe(400);
    expect(JSON.parse(responses[0]!.body)).toEqual({ error: 'Invalid request target' });
    expect(responses[0]!.header('connection')).toBe('close');
  });

  it('survives arbitrary targets and header bytes (property)', async () => {
    const targetChar = fc.constantFrom(...'/%[]:@?#.-_~!$&\'()*+,;=azAZ09\\^`{|}"<> \t'.split(''), '\u00e9', '\u0000', '\u007f');
    const target = fc.oneof(
      fc.array(targetChar, { maxLength: 24 }).map((c) => c.join('')),
      fc.array(targetChar, { maxLength: 16 }).map((c) => '//' + c.join('')),
      fc.array(targetChar, { maxLength: 16 }).map((c) => 'http://' + c.join('')),
    );
    const headerBytes = fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b).toString('latin1'));
    await fc.assert(
      fc.asyncProperty(target, headerBytes, async (t, extra) => {
        const { responses, text } = await converse(srv.port, [
          Buffer.from(`GET ${t} HTTP/1.1\r\nHost: ${HOST()}\r\nX-Extra: ${extra}\r\n\r\n`, 'latin1'),
        ]);
        // Every request gets an answer, and never a server error.
        expect(text.startsWith('HTTP/1.1 '), JSON.stringify([t, extra])).toBe(true);
        expect(responses[0]?.status ?? 0).toBeLessThan(500);
      }),
      { numRuns: 150 },
    );
    await healthy();
  }, 60_000);
});
