// The dialects Satchel speaks, by the name stored with a connection (dialect.ts says what each one decides).
// Record<AgentKind, …>: a name added to the wire's AgentKind is a compile error here until its dialect exists.
import type { AgentKind } from '../types.js';
import type { Dialect } from './dialect.js';
import { hermes } from './hermes.js';
import { openai } from './openai.js';

export type { Dialect } from './dialect.js';
export { HERMES_SESSION_HEADER } from './hermes.js';

const DIALECTS: Record<AgentKind, Dialect> = { hermes, openai };

/** Every dialect's name, in the order the page lists them and the refusals name them. */
export const AGENT_KINDS = Object.keys(DIALECTS) as AgentKind[];

/** The refusal of a kind that is none of them (a saved setting, a connection, the settings route). */
export const BAD_AGENT_KIND = `Invalid agent setting kind: expected ${AGENT_KINDS.join(' or ')}`;

export function isAgentKind(value: unknown): value is AgentKind {
  return typeof value === 'string' && Object.hasOwn(DIALECTS, value);
}

export function dialectOf(kind: AgentKind): Dialect {
  return DIALECTS[kind];
}

/** An address with no kind set: the dialect whose default port it is on, else plain OpenAI (discover.ts detects for real). */
export function guessKind(baseUrl: string): AgentKind {
  let port: string;
  try {
    port = new URL(baseUrl).port;
  } catch {
    return openai.kind;
  }
  return Object.values(DIALECTS).find((d) => d.defaultPort !== undefined && d.defaultPort === port)?.kind ?? openai.kind;
}

/** The kinds as the page names them (GET /api/agent/settings `kinds`): the page declares none of its own. */
export function kindLabels(): { kind: AgentKind; label: string }[] {
  return AGENT_KINDS.map((kind) => ({ kind, label: DIALECTS[kind].label }));
}
