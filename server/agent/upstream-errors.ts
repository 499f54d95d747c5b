// The agent's failures in words a person can act on: its address checked, an HTTP status turned into an
// AgentError, a connection error named, the server's own words cleaned (key removed, redacted, one short line).
import type http from 'node:http';
import { redact } from '../redact/index.js';
import { AgentError, type AgentConfig } from './types.js';

/** The server's own words in an error message are cut here: enough to act on, short enough for a banner. */
export const MAX_ERROR_MESSAGE_CHARS = 300;
/**
 * Where the connection is set, as the page names it: the gear's "Agent settings", its "Chat agent" tab
 * (renderer/index.html; error-texts.test.ts holds the two equal). Every hint that sends the person there says it
 * so, and its failure's button opens that tab.
 */
export const CHAT_AGENT_SETTINGS = 'Agent settings → Chat agent';
export const ADDRESS_HINT = `Correct the agent's address in ${CHAT_AGENT_SETTINGS}.`;
export const UNREACHABLE_HINT = `Start the agent, or correct its address in ${CHAT_AGENT_SETTINGS}.`;
export const WRONG_KEY_HINT = `Enter the right API key in ${CHAT_AGENT_SETTINGS}.`;
export const NO_KEY_HINT = `Enter the agent's API key in ${CHAT_AGENT_SETTINGS}.`;
export const MODEL_HINT = `Choose one of the agent's models in ${CHAT_AGENT_SETTINGS}.`;
export const TOO_LARGE_HINT = 'Send less at once: fewer or smaller attachments, or a new session.';
export const SERVER_FAILED_HINT = "Try again; if it keeps failing, the agent's own log says why.";
export const RETRY_HINT = 'Try again.';
export const TOO_LONG_ANSWER_HINT = 'Try again, asking for a shorter answer.';
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);
/** Words of a 400 that mean the request was too long for the model (OpenAI, vLLM, llama.cpp, Ollama say so). */
const TOO_LONG = /context|too long|too large|maximum|exceed/i;

/** `<base>/v1/<rest>`, whether the configured base ends in `/v1` or not. Throws AgentError for a non-http URL. */
export function agentUrl(baseUrl: string, rest: string): URL {
  let base: URL;
  try {
    base = new URL(baseUrl.trim());
  } catch {
    throw new AgentError('unreachable', "The agent's address is not a valid URL.", ADDRESS_HINT);
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') {
    throw new AgentError('unreachable', "The agent's address must start with http:// or https://.", ADDRESS_HINT);
  }
  const prefix = base.pathname.replace(/\/+$/, '').replace(/\/v1$/, '');
  base.pathname = `${prefix}/v1/${rest}`;
  base.search = '';
  base.hash = '';
  return base;
}

/** The server's words made safe to show: the key removed, credentials redacted, one line, short. */
export function cleanMessage(text: string, apiKey?: string): string {
  let out = text;
  if (apiKey) out = out.split(apiKey).join('***');
  out = redact(out).replace(/\s+/g, ' ').trim();
  return out.length > MAX_ERROR_MESSAGE_CHARS ? `${out.slice(0, MAX_ERROR_MESSAGE_CHARS)}…` : out;
}

/** The message in an OpenAI-style error body (`{"error": {"message"}}`, `{"error": "…"}`, `{"detail"}`), else the text. */
export function errorBodyMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as Record<string, unknown>;
    const error = parsed?.error;
    if (typeof error === 'string') return error;
    if (error && typeof (error as { message?: unknown }).message === 'string') return (error as { message: string }).message;
    for (const key of ['message', 'detail']) if (typeof parsed?.[key] === 'string') return parsed[key] as string;
  } catch {
    // Not JSON: the text itself.
  }
  return body;
}

/** Seconds from a Retry-After header: delta-seconds or an HTTP date. */
export function retryAfterSeconds(header: string | undefined, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const trimmed = header.trim();
  if (/^\d+(?:\.\d+)?$/.test(trimmed)) return Math.ceil(Number(trimmed));
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

/** The server's words after a status, in parentheses: `(502: Bad gateway)`, or `(502)` when it said nothing. */
function statusWords(status: number, said: string): string {
  return said ? `(${status}: ${said.replace(/\.+$/, '')})` : `(${status})`;
}

/**
 * The AgentError an HTTP error status means: one sentence of what happened, one of what to do. Where the status
 * says it all (a refused key, a missing model, a rate limit) the server's words are left out, as they would
 * only say it again.
 */
export function statusError(status: number, body: string, headers: http.IncomingHttpHeaders, config: AgentConfig, model: string): AgentError {
  const said = cleanMessage(errorBodyMessage(body), config.apiKey);
  if (status === 401 || status === 403) {
    return config.apiKey
      ? new AgentError('auth_error', `The agent refused the API key (${status}).`, WRONG_KEY_HINT)
      : new AgentError('auth_error', `The agent needs an API key (${status}).`, NO_KEY_HINT);
  }
  if (status === 404 && /model/i.test(said)) {
    return new AgentError('model_not_found', `The agent has no model "${cleanMessage(model, config.apiKey)}" (404).`, MODEL_HINT);
  }
  if (status === 404 || status === 405) return notCompatible(config, `POST /v1/chat/completions: ${status}`);
  if (status === 413 || (status === 400 && TOO_LONG.test(said))) {
    return new AgentError('upstream_error', `The agent refused the request as too large ${statusWords(status, said)}.`, TOO_LARGE_HINT, undefined, null);
  }
  if (status === 429) {
    const retry = retryAfterSeconds(headerText(headers['retry-after']));
    const when = retry === undefined ? 'Try again in a moment.' : `Try again in ${retry} s.`;
    return new AgentError('rate_limit', 'The agent is rate-limited (429).', when, retry);
  }
  if (status >= 500) return new AgentError('upstream_error', `The agent failed ${statusWords(status, said)}.`, SERVER_FAILED_HINT);
  return new AgentError('upstream_error', `The agent refused the request ${statusWords(status, said)}.`, RETRY_HINT);
}

/** A server at the agent's address that does not speak the OpenAI API there (a 404 page, a web page). */
export function notCompatible(config: AgentConfig, what: string): AgentError {
  const host = hostOf(config.baseUrl);
  return new AgentError('upstream_error', `${host} does not answer like an OpenAI-compatible agent (${what}).`, ADDRESS_HINT, undefined, 'agent_settings');
}

function hostOf(baseUrl: string): string {
  try {
    return new URL(baseUrl).host;
  } catch {
    return 'The agent';
  }
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export function connectionError(err: unknown, url: URL): AgentError {
  const code = (err as NodeJS.ErrnoException)?.code;
  if (code && UNREACHABLE_CODES.has(code)) {
    return new AgentError('unreachable', `Cannot reach the agent at ${url.host} (${code}).`, UNREACHABLE_HINT);
  }
  return new AgentError('upstream_error', `The connection to the agent at ${url.host} failed${code ? ` (${code})` : ''}.`, RETRY_HINT);
}
