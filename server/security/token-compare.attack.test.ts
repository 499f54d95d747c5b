// Every comparison of a secret a request carries (the launch token as Bearer, as cookie and as the one-time
// `/?token=` link; the launch and MCP tokens on /mcp) goes through crypto.timingSafeEqual with inputs of equal
// length, also when the given token is shorter or longer than the real one. A `===` anywhere on these paths
// leaks, through response time, how much of a guess is right; measuring that is flaky, so this test watches
// the comparison itself: an accepted request must have been accepted by a timingSafeEqual that said yes, and
// a refused one must have been refused by timingSafeEqual calls that all said no.
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type * as Crypto from 'node:crypto';

interface Comparison {
  lengths: [number, number];
  result: boolean;
}
const comparisons: Comparison[] = [];

vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof Crypto>();
  const timingSafeEqual = (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView): boolean => {
    const result = actual.timingSafeEqual(a, b);
    comparisons.push({ lengths: [a.byteLength, b.byteLength], result });
    return result;
  };
  return { ...actual, default: { ...actual, timingSafeEqual }, timingSafeEqual };
});

const { startTestServer, TEST_TOKEN } = await import('../testing/harness.js');
type TestServer = Awaited<ReturnType<typeof startTestServer>>;

let server: TestServer;
let mcpToken: string;

beforeAll(async () => {
  server = await startTestServer();
  const res = await server.api('/api/mcp');
  mcpToken = ((await res.json()) as { token: string }).token;
});
afterAll(async () => {
  await server?.stop();
});
beforeEach(() => {
  comparisons.length = 0;
});

/** Wrong guesses of `real`: one character off at the end (the case `===` leaks most), shorter, longer, other. */
function guessesOf(real: string): Record<string, string> {
  const last = real.at(-1) === 'A' ? 'B' : 'A';
  return {
    'same length, last character wrong': real.slice(0, -1) + last,
    'a prefix of it': real.slice(0, 5),
    'it plus one character': real + 'x',
    'one character': 'x',
  };
}

/** The comparisons one request made: at least one, all of equal-length inputs; whether one of them said yes. */
function verdict(): boolean {
  expect(comparisons.length, 'the token was compared through crypto.timingSafeEqual').toBeGreaterThan(0);
  for (const c of comparisons) expect(c.lengths[0], 'timingSafeEqual got inputs of different lengths').toBe(c.lengths[1]);
  const accepted = comparisons.some((c) => c.result);
  comparisons.length = 0;
  return accepted;
}

const bearer = (token: string) => fetch(`${server.origin}/api/sessions`, { headers: { Authorization: `Bearer ${token}` } });
const cookie = (token: string) => fetch(`${server.origin}/api/sessions`, { headers: { Cookie: `satchel_access=${token}` } });
const link = (token: string) => fetch(`${server.origin}/?token=${encodeURIComponent(token)}`, { redirect: 'manual' });
const mcp = (token: string) =>
  fetch(`${server.origin}/mcp`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
  });

describe('secret comparisons are constant-time', () => {
  const entrances = [
    { name: 'API, Authorization: Bearer', send: bearer, ok: 200, refused: 401, secrets: () => [TEST_TOKEN] },
    { name: 'API, access cookie', send: cookie, ok: 200, refused: 401, secrets: () => [TEST_TOKEN] },
    { name: 'the one-time /?token= link', send: link, ok: 302, refused: 403, secrets: () => [TEST_TOKEN] },
    { name: '/mcp (launch token or MCP token)', send: mcp, ok: 200, refused: 401, secrets: () => [TEST_TOKEN, mcpToken] },
  ];

  for (const entrance of entrances) {
    it(`${entrance.name}: the right token is accepted by timingSafeEqual, wrong ones of any length refused by it`, async () => {
      for (const secret of entrance.secrets()) {
        const res = await entrance.send(secret);
        expect(res.status, `${entrance.name} with the right token`).toBe(entrance.ok);
        await res.body?.cancel();
        expect(verdict(), 'the accepting comparison was timingSafeEqual').toBe(true);

        for (const [label, guess] of Object.entries(guessesOf(secret))) {
          const wrong = await entrance.send(guess);
          expect(wrong.status, `${entrance.name}, ${label}`).toBe(entrance.refused);
          await wrong.body?.cancel();
          expect(verdict(), label).toBe(false);
        }
      }
    });
  }

  it('/mcp compares both tokens whichever is given, so timing does not tell which one matched', async () => {
    const cases: Array<[string, number]> = [
      [TEST_TOKEN, 1],
      [mcpToken, 1],
      [guessesOf(mcpToken)['same length, last character wrong']!, 0],
    ];
    for (const [token, matches] of cases) {
      const res = await mcp(token);
      await res.body?.cancel();
      expect(comparisons.length, 'one comparison per token /mcp accepts').toBe(2);
      expect(comparisons.filter((c) => c.result).length).toBe(matches);
      comparisons.length = 0;
    }
  });
});
