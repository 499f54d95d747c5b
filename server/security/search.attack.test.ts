// Attacks on GET /api/search: a huge query, control characters, FTS5 syntax and random mixes of it, a query
// that is a secret, and 1,000 searches at once. None is a 500, none crashes the server, none leaks a secret.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SEARCH_QUERY_CHARS } from '../store/db/search-query.js';
import { startTestServer, type TestServer } from '../testing/harness.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Searches sent at once: the "1,000 concurrent". */
const CONCURRENT = 1_000;
/** Random queries made of FTS5's special characters and words. */
const FUZZ_QUERIES = 300;

let srv: TestServer;
let id: string;
const SECRET = 'ghp_Vb3Nm6Qw9Er2Ty5Ui8Op1As4Df7Gh0Jk3Lz6X';
beforeAll(async () => {
  srv = await startTestServer();
  id = await srv.newSession();
  for (const text of ['the heron and the egret', `key ${SECRET} in a note about herons`, 'NEAR(heron egret) "quoted" a*b c:d ^e -f']) {
    expect((await srv.json('/api/session/message', { session_id: id, text })).status).toBe(200);
  }
});
afterAll(async () => {
  await srv.stop();
});

const search = async (q: string): Promise<{ status: number; body: Json; raw: string }> => {
  const res = await srv.api(`/api/search?q=${encodeURIComponent(q)}`);
  const raw = await res.text();
  return { status: res.status, body: JSON.parse(raw) as Json, raw };
};

/** A small deterministic generator, so a failure is the same on every run. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('GET /api/search under attack', () => {
  it('answers a huge query with a 400 and its text, and a huge URL without crashing', async () => {
    expect(await search('heron '.repeat(MAX_SEARCH_QUERY_CHARS / 6 + 1))).toMatchObject({ status: 400, body: { error: `Search text too long (max ${MAX_SEARCH_QUERY_CHARS} characters)` } });
    // A URL past what Node reads (its 16 KiB header limit): refused by the HTTP layer (431), and the server goes on.
    for (const size of [20_000, 200_000]) {
      const huge = await srv.api(`/api/search?q=${'x'.repeat(size)}`).catch(() => undefined);
      expect(huge === undefined || huge.status === 431).toBe(true);
    }
    expect((await search('heron')).status).toBe(200);
  });

  it('reads control characters, NUL and lone surrogates as separators or text', async () => {
    // As sent on the wire, percent-encoded: invalid UTF-8 (a lone surrogate's bytes, a cut sequence) too.
    for (const q of ['%00heron', 'her%01on', '%02', '%01%02%01', 'heron%07%1B[31m', '%ED%A0%80heron', 'heron%F0%9F', '%E2%80%AE%E2%81%A6heron', '%', '%zz']) {
      const res = await srv.api(`/api/search?q=${q}`);
      const body = (await res.json()) as Json;
      expect(res.status, q).toBe(200);
      for (const r of body.results as Json[]) for (const seg of r.snippet as Json[]) expect(seg.text).not.toMatch(/[\u0001\u0002]/);
    }
  });

  it('never fails on FTS5 syntax, in any mix', async () => {
    const pieces = ['"', "'", 'NEAR(', 'NEAR', ')', '(', '*', '-', ':', '^', '+', 'AND', 'OR', 'NOT', '{', '}', 'text:', 'search:', 'heron', 'egr', ',', '""', '\\', '%', '_', ' ', ' '];
    const next = prng(24);
    for (let i = 0; i < FUZZ_QUERIES; i++) {
      const n = 1 + Math.floor(next() * 8);
      const q = Array.from({ length: n }, () => pieces[Math.floor(next() * pieces.length)]!).join(next() < 0.5 ? '' : ' ');
      if (q.trim() === '') continue;
      const { status } = await search(q);
      expect(status, JSON.stringify(q)).toBe(200);
    }
  });

  it('never finds a stored secret by a query of its characters, whole or in part, nor echoes a whole one', async () => {
    for (const q of [SECRET, SECRET.slice(4, 24), SECRET.slice(10), `"${SECRET}"`, `${SECRET.slice(0, 20)}*`]) {
      const { status, body, raw } = await search(q);
      expect(status).toBe(200);
      // The person's own words come back as typed (redacted): a fragment is no secret to the redactor, a whole key is.
      expect(body.query).not.toContain(SECRET);
      expect(raw).not.toContain(SECRET);
      expect(JSON.stringify(body.results)).not.toContain(SECRET.slice(6, -4));
      // Not even by its mask: the message holding the key is never found by the key.
      expect(body.results).toEqual([]);
    }
  });

  it(`answers ${CONCURRENT} searches at once, every one 200, and keeps serving`, async () => {
    const queries = Array.from({ length: CONCURRENT }, (_, i) => ['heron', 'egr', 'NEAR(', '"', 'herons note'][i % 5]!);
    const statuses = await Promise.all(queries.map((q) => srv.api(`/api/search?q=${encodeURIComponent(q)}`, { signal: AbortSignal.timeout(60_000) }).then(async (r) => (await r.text(), r.status))));
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    expect((await search('heron')).body.results.length).toBeGreaterThan(0);
  }, 90_000);
});
