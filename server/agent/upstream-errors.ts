// The agent's failures in words a person can act on: its address checked, an HTTP status turned into an
// AgentError, a connection error named, the server's own words cleaned (key removed, redacted, one short line).
import type http from 'node:http';
import { redact } from '../redact/index.js';
import { AgentError, type AgentConfig } from './types.js';

/** The server's own words in an error message are cut here: enough to act on, short enough for a banner. */
export const MAX_ERROR_MESSAGE_CHARS = 300;
export const SETTINGS_HINT = 'Check the agent in Settings → Agent.';
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);

/** `<base>/v1/<rest>`, whether the configured base ends in `/v1` or not. Throws AgentError for a non-http URL. */
export function agentUrl(baseUrl: string, rest: string): URL {
  let base: URL;
  try {
    base = new URL(baseUrl.trim());
  } catch {
    throw new AgentError('unreachable', "The agent's address is not a valid URL", SETTINGS_HINT);
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') {
    throw new AgentError('unreachable', "The agent's address must start with http:// or https://", SETTINGS_HINT);
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

/** The AgentError an HTTP error status means. */
export function statusError(status: number, body: string, headers: http.IncomingHttpHeaders, config: AgentConfig, model: string): AgentError {
  const said = cleanMessage(errorBodyMessage(body), config.apiKey);
  const suffix = said ? `: ${said}` : '';
  if (status === 401 || status === 403) {
    return new AgentError('auth_error', `The agent refused the request (${status})${suffix}`, "Check the agent's API key in Settings → Agent.");
  }
  if (status === 404) {
    return new AgentError('model_not_found', `The agent has no model "${cleanMessage(model, config.apiKey)}" (404)${suffix}`, "Choose one of the agent's models in Settings → Agent.");
  }
  if (status === 429) {
    const retry = retryAfterSeconds(headerText(headers['retry-after']));
    const when = retry === undefined ? 'try again shortly' : `try again in ${retry} s`;
    return new AgentError('rate_limit', `The agent is rate-limited (429); ${when}${suffix}`, undefined, retry);
  }
  return new AgentError('upstream_error', `The agent failed (${status})${suffix}`);
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export function connectionError(err: unknown, url: URL): AgentError {
  const code = (err as NodeJS.ErrnoException)?.code;
  if (code && UNREACHABLE_CODES.has(code)) {
    return new AgentError('unreachable', `Cannot reach the agent at ${url.host} (${code})`, `Is the agent running? ${SETTINGS_HINT}`);
  }
  return new AgentError('upstream_error', `The connection to the agent at ${url.host} failed${code ? ` (${code})` : ''}`);
}
