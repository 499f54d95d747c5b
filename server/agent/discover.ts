// Finding and checking an agent for the settings page. testConnection asks the configured server for its
// models (and, when the kind is not set, whether it is Hermes' gateway); discoverLocalAgents knocks on the
// usual local ports. Only loopback is ever probed: a non-loopback address is contacted only when it is the
// base URL the person typed.
import http from 'node:http';
import https from 'node:https';
import { AgentError, type AgentErrorType, type AgentKind } from './types.js';
import { agentUrl, cleanMessage, errorBodyMessage } from './upstream-errors.js';

/** A local port that does not answer this fast has nothing listening worth offering. */
export const LOCAL_PROBE_TIMEOUT_MS = 300;
/** The connection test waits longer: a remote server, a cold start. */
export const TEST_CONNECTION_TIMEOUT_MS = 10_000;
/** A models list (or a capabilities object) is read this far. */
export const MAX_DISCOVERY_BODY_BYTES = 1024 * 1024;
export const LOOPBACK = '127.0.0.1';

export interface LocalCandidate {
  kind: AgentKind;
  port: number;
  label: string;
}
/** The usual local servers, by their default ports. */
export const LOCAL_AGENT_CANDIDATES: readonly LocalCandidate[] = [
  { kind: 'hermes', port: 8642, label: 'Hermes Agent' },
  { kind: 'openai', port: 11434, label: 'Ollama' },
  { kind: 'openai', port: 1234, label: 'LM Studio' },
  { kind: 'openai', port: 8080, label: 'llama.cpp' },
];

export interface ConnectionTarget {
  baseUrl: string;
  apiKey?: string;
  kind?: AgentKind;
}
export type ConnectionResult =
  | { ok: true; models: string[]; kind: AgentKind }
  | { ok: false; type: AgentErrorType; message: string; hint?: string };

export interface LocalAgent {
  kind: AgentKind;
  baseUrl: string;
  label: string;
  /** It answered 401/403: present, but a key is needed. */
  needsKey?: boolean;
}

interface Answer {
  status: number;
  body: string;
}

function get(url: URL, apiKey: string | undefined, timeoutMs: number): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const transport = url.protocol === 'https:' ? https : http;
    const headers: http.OutgoingHttpHeaders = { accept: 'application/json' };
    if (apiKey) headers.authorization = `Bearer ${apiKey}`;
    const req = transport.get(url, { headers, timeout: timeoutMs }, (res) => {
      const parts: Buffer[] = [];
      let size = 0;
      res.on('data', (part: Buffer) => {
        size += part.length;
        if (size > MAX_DISCOVERY_BODY_BYTES) {
          req.destroy();
          resolve({ status: res.statusCode ?? 0, body: '' });
          return;
        }
        parts.push(part);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(parts).toString('utf8') }));
      res.on('error', reject);
    });
    const timedOut = () => req.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' }));
    req.on('timeout', timedOut);
    // `timeout` above is the socket's idle time: a server trickling a byte now and then would keep it from
    // ever firing. This one bounds the whole exchange: no wait on an agent goes without a deadline.
    const deadline = setTimeout(timedOut, timeoutMs);
    req.on('close', () => clearTimeout(deadline));
    req.on('error', reject);
  });
}

function parseJson(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

/** The model ids of an OpenAI `/v1/models` answer, or undefined when it is not one. */
export function modelIds(body: unknown): string[] | undefined {
  const data = (body as { data?: unknown } | undefined)?.data ?? (body as { models?: unknown } | undefined)?.models;
  if (!Array.isArray(data)) return undefined;
  return data.map((m) => (typeof m === 'string' ? m : (m as { id?: unknown; name?: unknown })?.id ?? (m as { name?: unknown })?.name)).filter((id): id is string => typeof id === 'string');
}

const failure = (err: AgentError): ConnectionResult => ({ ok: false, type: err.type, message: err.message, ...(err.hint ? { hint: err.hint } : {}) });

/** Hermes' gateway answers GET /v1/capabilities with a JSON object; other servers 404 it. */
async function isHermes(target: ConnectionTarget, timeoutMs: number): Promise<boolean> {
  try {
    const answer = await get(agentUrl(target.baseUrl, 'capabilities'), target.apiKey, timeoutMs);
    const body = parseJson(answer.body);
    return answer.status === 200 && typeof body === 'object' && body !== null && !Array.isArray(body);
  } catch {
    return false;
  }
}

/** Whether the configured server answers like an OpenAI-compatible one, its models, and its kind. */
export async function testConnection(target: ConnectionTarget, timeoutMs = TEST_CONNECTION_TIMEOUT_MS): Promise<ConnectionResult> {
  let url: URL;
  try {
    url = agentUrl(target.baseUrl, 'models');
  } catch (err) {
    return failure(err as AgentError);
  }
  let answer: Answer;
  try {
    answer = await get(url, target.apiKey, timeoutMs);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? '';
    if (code === 'ETIMEDOUT') return failure(new AgentError('timeout', `The agent at ${url.host} did not answer within ${Math.round(timeoutMs / 1000)} s`));
    return failure(new AgentError('unreachable', `Cannot reach the agent at ${url.host}${code ? ` (${code})` : ''}`, 'Is it running, and is the address right?'));
  }
  if (answer.status === 401 || answer.status === 403) {
    return failure(new AgentError('auth_error', `The agent refused the API key (${answer.status})`, 'Check the API key.'));
  }
  const models = answer.status === 200 ? modelIds(parseJson(answer.body)) : undefined;
  if (!models) {
    const said = answer.status === 200 ? '' : cleanMessage(errorBodyMessage(answer.body), target.apiKey);
    return failure(
      new AgentError(
        'upstream_error',
        `${url.host} does not answer like an OpenAI-compatible server (GET /v1/models: ${answer.status}${said ? `, ${said}` : ''})`,
        'Check the address: it is the server’s base URL, with or without /v1.',
      ),
    );
  }
  const kind = target.kind ?? ((await isHermes(target, timeoutMs)) ? 'hermes' : 'openai');
  return { ok: true, models, kind };
}

/** The local servers that answer on their usual ports (loopback only, a short wait each, all at once). */
export async function discoverLocalAgents(candidates: readonly LocalCandidate[] = LOCAL_AGENT_CANDIDATES, timeoutMs = LOCAL_PROBE_TIMEOUT_MS): Promise<LocalAgent[]> {
  const found = await Promise.all(
    candidates.map(async (candidate): Promise<LocalAgent | undefined> => {
      const baseUrl = `http://${LOOPBACK}:${candidate.port}`;
      try {
        const answer = await get(agentUrl(baseUrl, 'models'), undefined, timeoutMs);
        const base = { kind: candidate.kind, baseUrl, label: candidate.label };
        if (answer.status === 401 || answer.status === 403) return { ...base, needsKey: true };
        return answer.status === 200 && modelIds(parseJson(answer.body)) ? base : undefined;
      } catch {
        return undefined;
      }
    }),
  );
  return found.filter((agent): agent is LocalAgent => agent !== undefined);
}
