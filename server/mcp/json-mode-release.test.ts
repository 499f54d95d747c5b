// The SDK's transport in JSON response mode (as Satchel runs it: mcp/sessions.ts) with the official client over real
// HTTP: with releaseAnsweredRequests, a session that made 40 calls holds no entry for any of them; without it, the
// SDK still holds one per call (modelcontextprotocol/typescript-sdk#2559). When an SDK release fixes that, the
// second test fails: the workaround can then go.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { heldRequests, releaseAnsweredRequests } from './json-mode-release.js';

const CALLS = 40;
/** Each answer's size: an attachment's text, large enough that holding every one would show. */
const ANSWER_CHARS = 100_000;

async function session(release: boolean): Promise<{ transport: StreamableHTTPServerTransport; calls: () => Promise<string[]>; close: () => Promise<void> }> {
  const server = new McpServer({ name: 'json-mode', version: '1.0.0' });
  server.registerTool('echo', { inputSchema: { n: z.number() } }, async ({ n }) => ({ content: [{ type: 'text', text: `${n}:${'x'.repeat(ANSWER_CHARS)}` }] }));
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), enableJsonResponse: true });
  if (release) expect(releaseAnsweredRequests(transport)).toBe(true);
  await server.connect(transport);
  const web = http.createServer((req, res) => void transport.handleRequest(req, res));
  await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${(web.address() as AddressInfo).port}/mcp`)));
  return {
    transport,
    async calls() {
      const answers: string[] = [];
      for (let n = 0; n < CALLS; n++) {
        const r = (await client.callTool({ name: 'echo', arguments: { n } })) as { content: { text: string }[] };
        answers.push(r.content[0]!.text.slice(0, 8));
      }
      // Two at once too (their entries are resolved in either order).
      await Promise.all([client.callTool({ name: 'echo', arguments: { n: -1 } }), client.callTool({ name: 'echo', arguments: { n: -2 } })]);
      return answers;
    },
    async close() {
      await client.close();
      await server.close();
      await new Promise((resolve) => web.close(resolve));
    },
  };
}

describe('releaseAnsweredRequests', () => {
  it('a session holds no entry for the calls it answered, and every answer still arrives whole', async () => {
    const s = await session(true);
    try {
      const answers = await s.calls();
      expect(answers).toEqual(Array.from({ length: CALLS }, (_, n) => `${n}:${'x'.repeat(8 - `${n}:`.length)}`));
      // The client's own GET stream (list-changed notifications) at most.
      expect(heldRequests(s.transport)).toBeLessThanOrEqual(1);
    } finally {
      await s.close();
    }
  });

  it('is still needed: without it, this SDK holds an entry for every call answered', async () => {
    const s = await session(false);
    try {
      await s.calls();
      expect(heldRequests(s.transport)).toBeGreaterThanOrEqual(CALLS);
    } finally {
      await s.close();
    }
  });
});
