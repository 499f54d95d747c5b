// The SDK's Streamable HTTP transport (1.32.2, its latest v1 release) in JSON response mode never lets go of a
// request's stream entry once it answered it: `send()` resolves the POST's Response but only the SSE branch runs
// the entry's cleanup, so every tool call of a session stays in `_streamMapping` with the closure that resolved
// it, and through it the whole answer's JSON (an image read: megabytes). A soak of 1,072 MCP calls kept 38.5 MiB
// of answers live after idle (heap snapshot, session 17); a long-lived agent session grows without bound. Known
// upstream (modelcontextprotocol/typescript-sdk#2559; the v1 fix, #2747, is not released). Until it is, each JSON
// entry's resolver also removes the entry once it resolved: what #2747 does, from outside. The SDK is pinned
// exactly (package.json); mcp/json-mode-release.test.ts fails if its internals move, and deleting an entry that a
// fixed SDK already deleted is harmless.
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

interface StreamEntry {
  resolveJson?: (response: Response) => void;
}

/** The web-standard transport inside the Node one, and its private table of streams; undefined if the SDK changed. */
function streamTable(transport: StreamableHTTPServerTransport): Map<string, StreamEntry> | undefined {
  const inner = (transport as unknown as { _webStandardTransport?: { _streamMapping?: unknown } })._webStandardTransport;
  const table = inner?._streamMapping;
  return table instanceof Map ? (table as Map<string, StreamEntry>) : undefined;
}

/**
 * Make `transport` forget each JSON-mode request once it is answered. Returns false when the SDK's internals are
 * not where 1.32.2 keeps them (nothing is changed then).
 */
export function releaseAnsweredRequests(transport: StreamableHTTPServerTransport): boolean {
  const table = streamTable(transport);
  if (!table) return false;
  const set = table.set.bind(table);
  table.set = (id: string, entry: StreamEntry) => {
    const resolve = entry.resolveJson;
    if (typeof resolve === 'function') {
      entry.resolveJson = (response) => {
        resolve(response);
        if (table.get(id) === entry) table.delete(id);
      };
    }
    return set(id, entry);
  };
  return true;
}

/** How many requests the transport still holds an entry for (tests). */
export function heldRequests(transport: StreamableHTTPServerTransport): number | undefined {
  return streamTable(transport)?.size;
}
