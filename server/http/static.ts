// The web UI's files, and the one-time token link: GET /?token=… stores the access cookie and redirects to
// `/`, so the token leaves the address bar (and the history) at once.
import fs from 'node:fs/promises';
import path from 'node:path';
import mime from 'mime-types';
import { accessCookie, tokensEqual } from './access.js';
import type { HandlerInput, Host } from './lifecycle.js';
import { HttpError } from '../core/errors.js';
import { isInside } from '../core/paths.js';
import { sendText } from './respond.js';

export const MAX_STATIC_BYTES = 16 * 1024 * 1024;
/** The pages served at a path of their own: the main window, and the desktop shell's quick-capture window. */
export const PAGES: Readonly<Record<string, string>> = { '/': 'index.html', '/capture': 'capture.html' };
const SAFE_PATH = /^(?:[A-Za-z0-9_-][A-Za-z0-9_.-]*\/)*[A-Za-z0-9_-][A-Za-z0-9_.-]*$/;

/** The web UI's folder, besides what every handler's application has. */
export interface StaticHost extends Host {
  staticDir: string;
}

export async function serveStatic({ ctx, app }: HandlerInput<StaticHost>): Promise<void> {
  const method = ctx.req.method ?? 'GET';
  if (method !== 'GET' && method !== 'HEAD') throw new HttpError(405, 'Method not allowed');
  const { pathname, searchParams } = ctx.url;

  const page = Object.hasOwn(PAGES, pathname) ? PAGES[pathname] : undefined;
  if (page && searchParams.has('token')) {
    if (!tokensEqual(searchParams.get('token') ?? '', app.token)) throw new HttpError(403, 'Invalid access token');
    ctx.cookies.push(accessCookie(app.token));
    // The page again without the token; the capture window's `?session=` stays.
    const rest = new URLSearchParams(searchParams);
    rest.delete('token');
    const query = rest.toString();
    sendText(ctx, 302, 'Redirecting…', { headers: { Location: query ? `${pathname}?${query}` : pathname } });
    return;
  }

  let relative: string;
  try {
    relative = page ?? decodeURIComponent(pathname.slice(1));
  } catch {
    throw new HttpError(404, 'Not found');
  }
  if (!SAFE_PATH.test(relative)) throw new HttpError(404, 'Not found');
  const file = path.join(app.staticDir, relative);
  if (!isInside(app.staticDir, file)) throw new HttpError(404, 'Not found');
  const stat = await fs.lstat(file).catch(() => undefined);
  if (!stat?.isFile() || stat.size > MAX_STATIC_BYTES) throw new HttpError(404, 'Not found');
  const type = mime.contentType(path.extname(file)) || 'application/octet-stream';
  sendText(ctx, 200, await fs.readFile(file), { contentType: type });
}
