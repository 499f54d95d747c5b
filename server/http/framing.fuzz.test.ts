// Property tests: random framing shapes against the pure guard and against the live server. Whatever the
// headers, the server never crashes, never answers 500, always sends the security headers, and closes the
// connection (exactly one `Connection: close`) whenever it answered without reading a declared body.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeFraming } from './framing.js';
import { parseResponses, rawExchange, startTestServer, TEST_TOKEN, type TestServer } from '../testing/harness.js';

const SHORT_IDLE_MS = 300;
const lengthValue = fc.oneof(
  fc.nat({ max: 64 }).map(String),
  fc.constantFrom('', ' ', '0', '0, 0', '3, 4', '-1', '+5', '0x10', '1_0', '١', '5 ,5', '\t7\t', '99999999999999999999', '1e3'),
  fc.string({ maxLength: 6 }).filter((s) => !/[\r\n]/.test(s)),
);
const codingValue = fc.oneof(fc.constantFrom('chunked', 'identity', 'gzip', 'gzip, chunked', '', ' '), fc.stringMatching(/^[a-z, ]{0,12}$/));
const headerSet = fc.record({
  lengths: fc.array(lengthValue, { maxLength: 3 }),
  codings: fc.array(codingValue, { maxLength: 2 }),
  route: fc.constantFrom('/api/upload', '/api/workspace/upload', '/api/transcribe', '/api/session/new', '/health', '/api/nope'),
  method: fc.constantFrom('POST', 'GET', 'PUT'),
  contentType: fc.constantFrom('multipart/form-data; boundary=zz', 'multipart/form-data', 'application/json', ''),
  auth: fc.boolean(),
  body: fc.string({ maxLength: 40 }),
});

describe('framing guard (pure)', () => {
  it('never throws and classifies consistently', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom('Content-Length', 'content-length', 'Transfer-Encoding', 'X-Other'), fc.string()), { maxLength: 6 }), (pairs) => {
        const f = analyzeFraming(pairs.flat());
        if (f.transferEncoding !== undefined || f.contentLengthUnreadable) expect(f.bodyDeclared).toBe(true);
        if (f.contentLength !== undefined) expect(f.contentLengthUnreadable).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('framing guard (live server)', () => {
  let srv: TestServer;
  beforeAll(async () => {
    // A declared length the random body does not fill is a stalled body: answered 408 well inside the
    // exchange's deadline instead of after the production idle times.
    srv = await startTestServer({ bodyIdleTimeoutMs: SHORT_IDLE_MS, uploadStallTimeoutMs: SHORT_IDLE_MS });
  });
  afterAll(async () => {
    await srv.stop();
  });

  it('answers every random shape with a non-500 JSON error or success, security headers, and the close rule', async () => {
    await fc.assert(
      fc.asyncProperty(headerSet, async (h) => {
        const lines = [`${h.method} ${h.route} HTTP/1.1`, `Host: 127.0.0.1:${srv.port}`];
        if (h.auth) lines.push(`Authorization: Bearer ${TEST_TOKEN}`);
        if (h.contentType) lines.push(`Content-Type: ${h.contentType}`);
        for (const v of h.lengths) lines.push(`Content-Length: ${v}`);
        for (const v of h.codings) lines.push(`Transfer-Encoding: ${v}`);
        lines.push('Connection: close');
        const { text } = await rawExchange(srv.port, lines.join('\r\n') + '\r\n\r\n' + h.body, 3000);
        const responses = parseResponses(text);
        expect(responses.length).toBeGreaterThanOrEqual(1);
        const res = responses[0]!;
        expect(res.status).toBeLessThan(500);
        expect(res.header('content-security-policy')).toBeTruthy();
        expect(res.header('x-content-type-options')).toBe('nosniff');
        expect(res.headers.filter(([n]) => n === 'connection').length).toBeLessThanOrEqual(1);
        const framing = analyzeFraming(h.lengths.flatMap((v) => ['Content-Length', v]).concat(h.codings.flatMap((v) => ['Transfer-Encoding', v])));
        if (framing.transferEncoding !== undefined && res.status !== 200) expect(res.header('connection')).toBe('close');
        expect(() => JSON.parse(res.body || '{}')).not.toThrow();
      }),
      {
        numRuns: 150,
        // The shape that once stalled the exchange: a declared byte that never comes, on a JSON and an upload route.
        examples: [
          [{ lengths: ['1'], codings: [], route: '/api/session/new', method: 'POST', contentType: 'application/json', auth: true, body: '' }],
          [{ lengths: ['1'], codings: [], route: '/api/upload', method: 'POST', contentType: 'multipart/form-data; boundary=zz', auth: true, body: '' }],
        ],
      },
    );
    expect((await fetch(`${srv.origin}/health`)).status).toBe(200);
  }, 120_000);
});
