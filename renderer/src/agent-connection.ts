// The words of the agent dialog's connection (agent-settings.ts): Test's one sentence, the detected kind, and
// whether saving a new address must first ask about the saved key. Pure: tested beside, no DOM.
import type { AgentKind, AgentSettings, AgentSettingsResponse, AgentTestResponse } from './api.js';

/** Before any agent is set up the gear invites one; after, it and the dialog name what they are (issue 38: the
 * gear said "Connect an agent" with two agents connected). Unread settings count as none set up. */
export function gearWords(settings: Pick<AgentSettings, 'base_url'> | null): { title: string; heading: string } {
  return settings?.base_url ? { title: 'Agent settings', heading: 'Chat agent' } : { title: 'Connect an agent', heading: 'Connect an agent' };
}

/** The test route's answer as shown: its one sentence, then (on failure) the one of what to do. */
export function testResultText(res: AgentTestResponse): string {
  if (res.ok) return res.message;
  return res.hint ? `${res.message} ${res.hint}` : res.message;
}

/**
 * The kind line under the address: what was detected, or that it will be on Test or Save. The kinds' names are
 * the server's (GET /api/agent/settings `kinds`); one it did not name (the settings unread) shows as stored.
 */
export function kindText(kind: AgentKind | null | undefined, kinds: AgentSettingsResponse['kinds']): string {
  if (!kind) return 'Kind: detected on Test or Save';
  return `Detected: ${kinds.find((k) => k.kind === kind)?.label ?? kind}`;
}

/**
 * The address requests go to, for comparing two base URLs as the server does (config.ts, sameAgentAddress):
 * `/v1`, trailing slashes, query and fragment make no difference. Undefined when it is no http(s) URL.
 */
function agentAddress(baseUrl: string): string | undefined {
  try {
    const url = new URL(baseUrl.trim());
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    return `${url.origin}${url.pathname.replace(/\/+$/, '').replace(/\/v1$/, '')}`;
  } catch {
    return undefined;
  }
}

/**
 * The question to ask before saving, when the saved key would otherwise be dropped: a key is saved, the key
 * field is empty, and the address is not the one the key was saved with. Undefined: nothing to ask.
 */
export function keepKeyQuestion(saved: Pick<AgentSettings, 'base_url' | 'has_api_key'> | null, baseUrl: string, typedKey: string): string | undefined {
  if (!saved?.has_api_key || typedKey.trim() || !saved.base_url) return undefined;
  const before = agentAddress(saved.base_url) ?? saved.base_url.trim();
  const after = agentAddress(baseUrl) ?? baseUrl.trim();
  return before === after ? undefined : `Keep the saved key and send it to ${baseUrl.trim()}?`;
}

/** Said under the tools' box when the server refused a request offering them (issue 36). */
export const TOOLS_REFUSED_TEXT = 'This server refused a request with tools, so none are offered; Test the connection again after enabling them on the server.';

/**
 * The connection's tools' box: hidden for Hermes (it runs its own tools and is never offered Satchel's), and a
 * note when the server refused them (on its last Test, or in a turn), whatever the box says.
 */
export function toolsView(kind: AgentKind | undefined, refused: boolean): { hidden: boolean; note: string } {
  if (kind === 'hermes') return { hidden: true, note: '' };
  return { hidden: false, note: refused ? TOOLS_REFUSED_TEXT : '' };
}
