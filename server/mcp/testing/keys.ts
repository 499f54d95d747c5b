// Test helpers for agent keys (issue 39): make a key through the panel's route, connect the official SDK client
// with it, read the ledger back. Used by the keys', grants' and ledger's tests only.
import { createHash } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { McpLedgerEntry, McpLedgerPage } from '../../core/wire.js';
import type { TestServer } from '../../testing/harness.js';

export interface MadeKey {
  id: string;
  token: string;
}

export async function makeKey(server: TestServer, body: Record<string, unknown>): Promise<MadeKey> {
  const res = await server.json('/api/mcp/keys', body);
  if (res.status !== 200) throw new Error(`keys: ${res.status} ${await res.text()}`);
  const made = (await res.json()) as { key: { id: string }; token: string };
  return { id: made.key.id, token: made.token };
}

export async function connectWith(server: TestServer, token: string, name = 'test-agent'): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.origin + '/mcp'), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return client;
}

/** The ledger as the panel reads it: its wire shape, so a test and the page read the same fields. */
export async function ledger(server: TestServer, query = ''): Promise<McpLedgerEntry[]> {
  const res = await server.api(`/api/mcp/ledger?limit=500${query}`);
  if (res.status !== 200) throw new Error(`ledger: ${res.status} ${await res.text()}`);
  return ((await res.json()) as McpLedgerPage).entries;
}

/** The first text item of a tool result. */
export function firstText(result: unknown): string {
  return ((result as { content: { text?: string }[] }).content[0]?.text) ?? '';
}

/** What the ledger's hash covers of a tool result: its items but the note every success ends with (mcp/ledger.ts). */
export function servedHash(result: unknown): { bytes: number; sha256: string } {
  const items = (result as { content: { type: string; text?: string; data?: string }[] }).content.slice(0, -1);
  const hash = createHash('sha256');
  let bytes = 0;
  for (const item of items) {
    const piece = typeof item.text === 'string' ? Buffer.from(item.text, 'utf8') : Buffer.from(item.data ?? '', 'base64');
    hash.update(`${piece.length}:`);
    hash.update(piece);
    bytes += piece.length;
  }
  return { bytes, sha256: hash.digest('hex') };
}
