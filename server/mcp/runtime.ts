// The MCP SDK (with zod and ajv) and Satchel's MCP server built on it are about 0.4 s of the server's start, yet
// only an MCP client needs them: they load on the first /mcp request that passed the token and Origin checks
// (endpoint.ts), as onnxruntime and sharp load on first use.
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { createMcpServer } from './server.js';

export interface McpRuntime {
  StreamableHTTPServerTransport: typeof StreamableHTTPServerTransport;
  isInitializeRequest: typeof isInitializeRequest;
  createMcpServer: typeof createMcpServer;
}

let loading: Promise<McpRuntime> | undefined;

/** The SDK, loaded once: requests arriving while it loads wait on the same promise. A failed load is retried
 *  by the next request rather than remembered. */
export function loadMcpRuntime(): Promise<McpRuntime> {
  loading ??= Promise.all([
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
    import('./server.js'),
  ]).then(
    ([transport, types, server]) => ({
      StreamableHTTPServerTransport: transport.StreamableHTTPServerTransport,
      isInitializeRequest: types.isInitializeRequest,
      createMcpServer: server.createMcpServer,
    }),
    (err: unknown) => {
      loading = undefined;
      throw err;
    },
  );
  return loading;
}
