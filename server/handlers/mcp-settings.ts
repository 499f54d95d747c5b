// The "Let other agents read Satchel (MCP)" panel's data: the endpoint's URL, the MCP token and the client
// snippets built from them. The token is sent on purpose: this route is the person's own UI behind the launch
// token, which already opens everything the MCP token opens (docs/mcp.md, "Access").
import { HttpError } from '../core/errors.js';
import type { HandlerInput } from '../app.js';
import { jsonBody, sendText } from '../http/respond.js';
import { clientSnippets } from '../mcp/clients.js';
import { closeMcpTokenSessions } from '../mcp/sessions.js';
import { mcpTokenOf } from '../mcp/token.js';
import type * as wire from '../core/wire.js';

export const MCP_PATH = '/mcp';

/** The URL the person reached us on (the lifecycle has checked that Host): the one an agent on this machine uses. */
function endpointUrl(input: HandlerInput): string {
  return `http://${input.ctx.req.headers.host ?? ''}${MCP_PATH}`;
}

function settings(input: HandlerInput, token: string): wire.McpSettings {
  const url = endpointUrl(input);
  return { url, token, clients: clientSnippets(url, token) };
}

/**
 * Sent without the redactor, the one JSON answer that is: it would cut the token out of the snippets
 * (`Bearer …` looks like the credential it is), and handing this credential over is the route's purpose.
 */
function sendSettings(input: HandlerInput, token: string): void {
  sendText(input.ctx, 200, jsonBody(settings(input, token)), { contentType: 'application/json; charset=utf-8' });
}

function tokenOf(input: HandlerInput) {
  const token = mcpTokenOf(input.app);
  if (!token) throw new HttpError(503, 'The MCP token is not available');
  return token;
}

export function getMcpSettings(input: HandlerInput): void {
  sendSettings(input, tokenOf(input).value);
}

/** A new token; the old one is refused from now on, and the MCP sessions it opened are closed. */
export async function regenerateMcpToken(input: HandlerInput): Promise<void> {
  const next = await tokenOf(input).regenerate();
  closeMcpTokenSessions(input.app);
  sendSettings(input, next);
}
