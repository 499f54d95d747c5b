/// <reference lib="dom" />
// Driving a conversation against the fake agent (server/testing/fake-agent.ts): open the app, connect the
// agent in the settings dialog, and read back what the agent was sent.
import { expect, type Page } from '@playwright/test';
import type { FakeAgent, RecordedRequest } from '../../server/testing/fake-agent.js';
import type { ServerInfo } from './server.js';

/** One Chat Completions content part, as the fake agent received it. */
export interface SentPart {
  type: string;
  text?: string;
  image_url?: { url: string };
}

export interface SentMessage {
  role: string;
  content: string | SentPart[];
}

export async function openApp(page: Page, server: Pick<ServerInfo, 'base' | 'token'>): Promise<void> {
  await page.goto(`${server.base}/?token=${server.token}`);
  await expect(page.getByTestId('app')).toHaveAttribute('data-ready', 'true');
}

/** Connect `agent` through the settings dialog: address, key, Test (which picks the model), Save. */
export async function configureAgent(page: Page, agent: FakeAgent, key: string): Promise<void> {
  await page.getByTestId('agent-settings-button').click();
  const dialog = page.getByTestId('agent-dialog');
  await expect(dialog).toBeVisible();
  await dialog.getByTestId('agent-base-url').fill(agent.baseUrl);
  await dialog.getByTestId('agent-api-key').fill(key);
  await dialog.getByTestId('agent-test').click();
  // The test fills in the model when it answers; saving before that saves no model (seen on a busy machine:
  // every turn then failed with model_not_found).
  await expect(dialog.getByTestId('agent-model')).not.toHaveValue('');
  await dialog.getByTestId('agent-save').click();
  await expect(dialog).toBeHidden();
}

/** The chat completion requests the agent received, oldest first. */
export function completionRequests(agent: FakeAgent): RecordedRequest[] {
  return agent.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/chat/completions'));
}

/** The newest user message of a completion request: the turn just sent (history comes before it). */
export function lastUserMessage(request: RecordedRequest | undefined): SentMessage {
  const messages = (request?.body as { messages?: SentMessage[] } | undefined)?.messages ?? [];
  const user = messages.filter((m) => m.role === 'user').at(-1);
  if (!user) throw new Error(`no user message in ${JSON.stringify(request?.body)}`);
  return user;
}

/** A message's content as parts (a plain string is one text part). */
export function partsOf(message: SentMessage): SentPart[] {
  return typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
}
