// What the search tests ask of a test server: its results for a query, a hit's snippet written out with the
// matched words in [brackets], and an upload that must succeed.
import { expect } from 'vitest';
import { postMultipart, type TestServer } from './harness.js';

export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** GET /api/search?q=… : its results. */
export async function searchResults(srv: TestServer, q: string): Promise<Json[]> {
  return ((await (await srv.api(`/api/search?q=${encodeURIComponent(q)}`)).json()) as Json).results as Json[];
}

/** A hit's snippet as one string, each matched segment in [brackets]. */
export function shownSnippet(hit: Json): string {
  return (hit.snippet as { text: string; match: boolean }[]).map((s) => (s.match ? `[${s.text}]` : s.text)).join('');
}

/** POST /api/upload of one file into session `id`, which must answer 200; its stored attachment. */
export async function uploadOk(srv: TestServer, id: string, filename: string, content: string | Buffer): Promise<Json> {
  const up = await postMultipart(srv, '/api/upload', [{ name: 'session_id', content: id }, { name: 'file', filename, content }]);
  expect(up.status).toBe(200);
  return up.body as Json;
}
