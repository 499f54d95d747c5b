// The server's API as a test's setup calls it (Node side, with the launch token): a POST that must answer 200, and a
// conversation made with a title and one message. For specs that seed their own server before the page opens.
import { expect } from '@playwright/test';
import type { ServerInfo } from './server.js';

type Reachable = Pick<ServerInfo, 'base' | 'token'>;

/** POST `body` to `route`; the test fails with the server's answer unless it is 200. */
export async function apiPost<T>(server: Reachable, route: string, body: unknown): Promise<T> {
  const res = await fetch(`${server.base}${route}`, { method: 'POST', headers: { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as T;
}

/** A conversation titled `title` holding the message `text`; its id. */
export async function apiConversation(server: Reachable, title: string, text: string): Promise<string> {
  const { session } = await apiPost<{ session: { session_id: string } }>(server, '/api/session/new', {});
  await apiPost(server, '/api/session/rename', { session_id: session.session_id, title });
  await apiPost(server, '/api/session/message', { session_id: session.session_id, text });
  return session.session_id;
}
