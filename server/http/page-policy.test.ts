// The page's own Content-Security-Policy (a <meta> in renderer/index.html), as the server serves it: stricter
// than the specification's header, which stays exactly as it is (headers.ts) and which browsers enforce too.
// No 'unsafe-inline' for scripts or styles, nothing from another origin; and the page itself needs neither
// (no inline script, style element, style attribute or inline handler). e2e/csp.spec.ts checks the running UI.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { contentSecurityPolicy } from './headers.js';
import { PAGES } from './static.js';

/** The only sources the page's policy may name, per directive (anything else is refused by the test). */
const ALLOWED_SOURCES: Record<string, readonly string[]> = {
  'default-src': ["'self'"],
  'script-src': ["'self'"],
  'style-src': ["'self'"],
  // A dropped image's thumbnail is an object URL until it is uploaded.
  'img-src': ["'self'", 'blob:'],
  'connect-src': ["'self'"],
  'font-src': ["'self'"],
  'media-src': ["'self'"],
  'worker-src': ["'self'"],
  'frame-src': ["'none'"],
  'object-src': ["'none'"],
  'base-uri': ["'none'"],
  'form-action': ["'self'"],
};

let srv: TestServer;
/** Each page the server serves at a path of its own (static.ts PAGES): the main window and quick capture. */
const served = new Map<string, { html: string; headerPolicy: string | null }>();
beforeAll(async () => {
  srv = await startTestServer({ staticDir: path.resolve('renderer') });
  for (const page of Object.keys(PAGES)) {
    const res = await fetch(`${srv.origin}${page}`);
    expect(res.status).toBe(200);
    served.set(page, { headerPolicy: res.headers.get('content-security-policy'), html: await res.text() });
  }
});
afterAll(async () => {
  await srv.stop();
});

function metaPolicies(page: string): { index: number; content: string }[] {
  const out: { index: number; content: string }[] = [];
  for (const m of page.matchAll(/<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]*)"\s*>/gi)) out.push({ index: m.index, content: m[1]! });
  return out;
}

function directives(policy: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const part of policy.split(';')) {
    const [name, ...sources] = part.trim().split(/\s+/);
    if (name) out.set(name.toLowerCase(), sources);
  }
  return out;
}

describe.each(Object.keys(PAGES))("the page's own policy: %s", (page) => {
  let html: string;
  let headerPolicy: string | null;
  beforeAll(() => {
    ({ html, headerPolicy } = served.get(page)!);
  });

  it('is one <meta>, before every script, stylesheet and image the page loads', () => {
    const metas = metaPolicies(html);
    expect(metas).toHaveLength(1);
    const firstLoad = html.search(/<(script|link|style|img)\b/i);
    expect(firstLoad).toBeGreaterThan(0);
    expect(metas[0]!.index).toBeLessThan(firstLoad);
  });

  it("has no 'unsafe-inline' (nor eval, wildcards, schemes or hosts): only 'self', 'none' and blob: images", () => {
    const policy = directives(metaPolicies(html)[0]!.content);
    expect([...policy.keys()].sort()).toEqual(Object.keys(ALLOWED_SOURCES).sort());
    for (const [name, sources] of policy) {
      expect(sources.length, name).toBeGreaterThan(0);
      for (const source of sources) expect(ALLOWED_SOURCES[name], `${name} ${source}`).toContain(source);
    }
    const text = metaPolicies(html)[0]!.content;
    expect(text).not.toMatch(/unsafe-inline|unsafe-eval|unsafe-hashes|strict-dynamic|https?:|wss?:|\*/);
    expect(policy.get('script-src')).toEqual(["'self'"]);
    expect(policy.get('style-src')).toEqual(["'self'"]);
  });

  it('the page needs nothing inline: no inline script, <style>, style attribute or on… handler', () => {
    for (const tag of html.matchAll(/<script\b[^>]*>/gi)) expect(tag[0]).toMatch(/\ssrc="[^"]+"/);
    expect(html).not.toMatch(/<style\b/i);
    // Attributes only: inside tags, outside comments.
    const tags = html.replace(/<!--[\s\S]*?-->/g, '').match(/<[a-z][^>]*>/gi) ?? [];
    for (const tag of tags) {
      expect(tag, tag).not.toMatch(/\sstyle\s*=/i);
      expect(tag, tag).not.toMatch(/\son[a-z]+\s*=/i);
      expect(tag, tag).not.toMatch(/javascript:/i);
    }
  });

  it("the specification's header policy is served unchanged beside it", () => {
    expect(headerPolicy).toBe(contentSecurityPolicy());
  });
});
