// An agent's view of a running server: the MCP SDK's own client over Streamable HTTP, with the Bearer token.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ServerInfo } from './server.js';

/** `name`: the clientInfo name it gives at `initialize` (read receipts show it). */
export async function mcpClient(server: Pick<ServerInfo, 'base' | 'token'>, name = 'satchel-e2e'): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${server.base}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${server.token}` } } });
  await client.connect(transport);
  return client;
}

/** The first text content of a tool result; a tool error fails loudly with its own message. */
export async function callText(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const result = await client.callTool({ name, arguments: args });
  const first = (result.content as { type: string; text?: string }[])[0];
  if (result.isError) throw new Error(`${name} failed: ${first?.text ?? JSON.stringify(result.content)}`);
  return first?.text ?? '';
}

export async function callJson<T = unknown>(client: Client, name: string, args: Record<string, unknown>): Promise<T> {
  return JSON.parse(await callText(client, name, args)) as T;
}
