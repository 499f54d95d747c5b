// The smaller JSON answers, each as it leaves the server: configuration, profiles, the chat routes' replies,
// the agent settings, speech. Names the server validated or generated (profiles, stream ids, the version) go
// out as they are; what people, agents or the network wrote (titles, transcripts, messages, hints, the agent's
// address and model names as the person typed them) is free text.
import type * as wire from '../core/wire.js';
import { redactText, serverValue, type RedactedText, type ServerValue } from './brand.js';

export interface PublicError {
  error: RedactedText;
}

/** `{ "error": message }`: error texts quote input (a file name, a field), so they are redacted. */
export function publicError(message: string): PublicError {
  return { error: redactText(message) };
}

export function publicConfig(c: wire.ConfigResponse) {
  return { ok: true as const, version: serverValue(c.version), max_upload_bytes: c.max_upload_bytes, max_upload_mb: c.max_upload_mb, profile: serverValue(c.profile) };
}

export function publicProfiles(active: string, profiles: readonly string[]) {
  return { active: serverValue(active), profiles: profiles.map(serverValue) };
}

/** POST /api/profile/switch */
export function publicProfileSwitched(active: string) {
  return { ok: true as const, active: serverValue(active) };
}

export function publicChatStarted(s: { stream_id: string; session_id: string; pending_started_at: number; title: string }) {
  return { stream_id: serverValue(s.stream_id), session_id: serverValue(s.session_id), pending_started_at: s.pending_started_at, title: redactText(s.title) };
}

/** A refused turn: 409 names the running stream (the UI attaches to it), 503 says how to set an agent up. */
export function publicChatRefusal(message: string, extra: { active_stream_id?: string; hint?: string; action?: string }) {
  return {
    ...publicError(message),
    active_stream_id: extra.active_stream_id === undefined ? undefined : serverValue(extra.active_stream_id),
    hint: extra.hint === undefined ? undefined : redactText(extra.hint),
    action: extra.action === undefined ? undefined : serverValue(extra.action),
  };
}

/** The stream id here is the one the client asked about, quoted back: free text like any other input. */
export function publicStreamStatus(s: wire.ChatStreamStatus) {
  return { active: s.active, stream_id: redactText(s.stream_id), replay_available: s.replay_available, last_seq: s.last_seq, terminal: s.terminal };
}

export function publicCancel(cancelled: boolean, streamId: string) {
  return { ok: true as const, cancelled, stream_id: redactText(streamId) };
}

export interface PublicAgentSettings {
  base_url: RedactedText | null;
  model: RedactedText | null;
  kind: wire.AgentSettings['kind'];
  timeout_ms: number;
  context_chars: number;
  has_api_key: boolean;
  tools: boolean;
  tools_refused: boolean;
  from_env: ServerValue[];
}

/** The address and model as the person typed them (an address may carry a key in its query): free text. */
export function publicAgentSettings(s: wire.AgentSettings): PublicAgentSettings {
  return {
    base_url: s.base_url === null ? null : redactText(s.base_url),
    model: s.model === null ? null : redactText(s.model),
    kind: s.kind,
    timeout_ms: s.timeout_ms,
    context_chars: s.context_chars,
    has_api_key: s.has_api_key,
    tools: s.tools,
    tools_refused: s.tools_refused,
    from_env: s.from_env.map(serverValue),
  };
}

/** The kinds the server speaks and their names (agent/dialect/): the server's own words. */
export function publicAgentKinds(kinds: wire.AgentSettingsResponse['kinds']) {
  return kinds.map((k) => ({ kind: k.kind, label: serverValue(k.label) }));
}

export function publicAgentConnections(r: wire.AgentConnectionsResponse) {
  return {
    connections: r.connections.map((c) => ({ id: serverValue(c.id), name: redactText(c.name), is_default: c.is_default, ...publicAgentSettings(c) })),
    default_id: serverValue(r.default_id),
    max_connections: r.max_connections,
    max_name_chars: r.max_name_chars,
    ...(r.id === undefined ? {} : { id: serverValue(r.id) }),
  };
}

export function publicAgentTest(r: wire.AgentTestResponse) {
  return r.ok
    ? { ok: true as const, models: r.models.map(redactText), kind: r.kind, key_checked: r.key_checked, message: redactText(r.message), ...(r.tools === undefined ? {} : { tools: r.tools }) }
    : {
        ok: false as const,
        type: r.type,
        message: redactText(r.message),
        hint: r.hint === undefined ? undefined : redactText(r.hint),
        models: r.models === undefined ? undefined : r.models.map(redactText),
      };
}

/** GET /api/agent/models: names and sentences from the agent pass the redactor like the Test's. */
export function publicAgentModels(r: wire.AgentModelsResponse) {
  return r.ok
    ? { ok: true as const, models: r.models.map(redactText), model: redactText(r.model) }
    : { ok: false as const, type: r.type, message: redactText(r.message), hint: r.hint === undefined ? undefined : redactText(r.hint) };
}

/** Addresses the server built itself from the loopback ports it probed, with its own labels. */
export function publicDiscovered(agents: wire.AgentDiscoverResponse['agents']) {
  return {
    agents: agents.map((a) => ({ kind: a.kind, base_url: serverValue(a.base_url), label: serverValue(a.label), needs_key: a.needs_key })),
  };
}

export function publicTranscript(transcript: string) {
  return { ok: true as const, transcript: redactText(transcript) };
}

export function publicCapability(available: boolean, provider: string) {
  return { ok: true as const, available, provider: serverValue(provider) };
}
