// Ready-to-paste configurations for the MCP clients docs/mcp.md names, built from the endpoint's URL and the
// MCP token. One place for them: the settings route sends them and the UI shows them as they are.
import type * as wire from '../core/wire.js';

/** The name every snippet registers the server under. */
export const MCP_SERVER_NAME = 'satchel';

/** Inside TOML and YAML double-quoted strings, and JSON: backslash and quote escaped (a URL never has more). */
const quoted = (text: string): string => JSON.stringify(text);

export function clientSnippets(url: string, token: string): wire.McpClientSnippets {
  const bearer = `Bearer ${token}`;
  return {
    claude_code: `claude mcp add --transport http ${MCP_SERVER_NAME} ${url} --header "Authorization: ${bearer}"`,
    codex: [`[mcp_servers.${MCP_SERVER_NAME}]`, `url = ${quoted(url)}`, `http_headers = { Authorization = ${quoted(bearer)} }`].join('\n'),
    cursor: JSON.stringify({ mcpServers: { [MCP_SERVER_NAME]: { url, headers: { Authorization: bearer } } } }, null, 2),
    hermes: ['mcp_servers:', `  ${MCP_SERVER_NAME}:`, `    url: ${quoted(url)}`, '    headers:', `      Authorization: ${quoted(bearer)}`].join('\n'),
  };
}
