// A web page the user visits can reach the loopback server. Here an ordinary page on another origin loads
// Satchel URLs whose targets once crashed the server (`new URL` threw before the handler's guard), as images,
// and Satchel must still answer afterwards.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from './fixtures.js';

/** Targets the browser sends as they are; each one killed the process before the lifecycle guard. */
const CRASHERS = ['//%zz', '//[', '//a:99999/', '//%zz/api/sessions'];

function hostilePage(satchel: string): string {
  const images = CRASHERS.map((t, i) => `<img id="i${i}" src="${satchel}${t}">`).join('\n');
  return `<!doctype html><title>a page the user happened to visit</title>${images}
<script>
  window.settled = Promise.all([...document.images].map((img) => img.complete ? 'done' :
    new Promise((resolve) => { img.onload = img.onerror = () => resolve('done'); })));
</script>`;
}

test('a page on another origin cannot take the server down with malformed image URLs', async ({ browser, server }) => {
  const satchel = new URL(server.base);
  const page = hostilePage(`http://127.0.0.1:${satchel.port}`);
  const other = http.createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(page);
  });
  await new Promise<void>((resolve) => other.listen(0, 'localhost', resolve));
  const ctx = await browser.newContext();
  try {
    const tab = await ctx.newPage();
    // The browser either shows the answer or withholds it (Opaque Response Blocking hides a JSON answer from
    // an <img>, and says so only after the answer arrived); what must never happen is no answer at all.
    const outcomes = new Map<string, string>();
    tab.on('response', (res) => {
      if (res.url().includes(`:${satchel.port}/`)) outcomes.set(res.url(), `status ${res.status()}`);
    });
    tab.on('requestfailed', (req) => {
      if (req.url().includes(`:${satchel.port}/`)) outcomes.set(req.url(), req.failure()?.errorText ?? 'failed');
    });
    await tab.goto(`http://localhost:${(other.address() as AddressInfo).port}/`);
    await tab.evaluate(() => (window as unknown as { settled: Promise<unknown> }).settled);
    await expect.poll(() => outcomes.size).toBe(CRASHERS.length);
    for (const [url, outcome] of outcomes) expect(outcome, url).toMatch(/^(status 4\d\d|net::ERR_BLOCKED_BY_ORB)$/);
    // And the server is still there.
    const health = await ctx.request.get(`${server.base}/health`);
    expect(health.status()).toBe(200);
    expect(await health.json()).toEqual({ ok: true });
  } finally {
    await ctx.close();
    await new Promise((resolve) => other.close(resolve));
  }
});
