// The access token: without the cookie the API refuses and the page says how to get in.
import { expect, test } from './fixtures.js';

test('a browser without the token cookie is refused and told to open the tokened link', async ({ browser, server }) => {
  const ctx = await browser.newContext();
  try {
    const res = await ctx.request.get(`${server.base}/api/sessions`);
    expect([401, 403]).toContain(res.status());
    expect(typeof ((await res.json()) as { error?: unknown }).error).toBe('string');
    const page = await ctx.newPage();
    await page.goto(`${server.base}/`);
    const notice = page.getByTestId('auth-required');
    await expect(notice).toBeVisible();
    await expect(notice).toContainText('open the link with its token');
    await expect(page.getByTestId('app')).toBeHidden();
    // A wrong token is refused too, and sets no cookie.
    const wrong = await ctx.request.get(`${server.base}/?token=not-the-token`, { maxRedirects: 0 });
    expect(wrong.status()).toBe(403);
    expect(await ctx.cookies()).toEqual([]);
  } finally {
    await ctx.close();
  }
});

test('the token link sets the cookie and leaves the token out of the address bar', async ({ browser, server }) => {
  const ctx = await browser.newContext();
  try {
    const page = await ctx.newPage();
    await page.goto(`${server.base}/?token=${server.token}`);
    await expect(page.getByTestId('app')).toBeVisible();
    expect(page.url()).not.toContain('token=');
    const cookies = await ctx.cookies();
    expect(cookies.some((c) => c.httpOnly && c.sameSite === 'Strict')).toBe(true);
  } finally {
    await ctx.close();
  }
});
