// The lifecycle's last-resort guard: a failure that escapes the ordinary error handling (here, errors whose
// own properties throw) is answered 500 for that request only, logged redacted, and the server goes on.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRequestListener, type Host, type RouteTable } from './lifecycle.js';
import { HttpError } from '../core/errors.js';
import { setLogSink } from '../core/log.js';
import { sendJson } from './respond.js';

const SECRET = 'sk-proj-abcdefghijklmnopqrstuvwxyz0123456789';

/** An HttpError whose status getter throws: the error path itself fails while answering. */
function treacherousError(): HttpError {
  const err = new HttpError(400, `bad ${SECRET}`);
  Object.defineProperty(err, 'status', {
    get() {
      throw new Error(`status exploded near ${SECRET}`);
    },
  });
  return err;
}

const routes: RouteTable = {
  '/boom': { GET: { auth: false, handler: () => Promise.reject(treacherousError()) } },
  '/sync-boom': {
    GET: {
      auth: false,
      handler: () => {
        throw treacherousError();
      },
    },
  },
  '/ok': { GET: { auth: false, handler: ({ ctx }) => sendJson(ctx, 200, { ok: true }) } },
};

const app = {
  config: { host: '127.0.0.1', port: 0, stateDir: '/nonexistent', maxUploadBytes: 1024 },
  token: 't',
  stopping: new AbortController().signal,
} as unknown as Host;

let server: http.Server;
let base: string;
const lines: string[] = [];
let restore: () => void;

beforeAll(async () => {
  restore = setLogSink((line) => lines.push(line));
  server = http.createServer(createRequestListener(app, routes, () => Promise.reject(new Error('no fallback'))));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  restore();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('last-resort guard', () => {
  it.each(['/boom', '/sync-boom'])('answers %s 500 with the generic JSON error and keeps serving', async (pathname) => {
    const res = await fetch(base + pathname, { signal: AbortSignal.timeout(5000) });
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ error: 'Internal server error' });
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('connection')).toBe('close');
    const after = await fetch(`${base}/ok`, { signal: AbortSignal.timeout(5000) });
    expect(after.status).toBe(200);
  });

  it('logs what escaped, redacted', () => {
    const logged = lines.join('\n');
    expect(logged).toContain('request handling failed unexpectedly');
    expect(logged).not.toContain(SECRET);
  });
});
