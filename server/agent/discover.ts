// Finding and checking an agent for the settings page. testConnection proves what it reports: it asks the
// server something the server authenticates (its models when that list needs the key, else a one-token
// completion) and detects the kind; detectKind is the same probe, used again whenever the base URL changes;
// discoverLocalAgents knocks on the usual local ports. Only loopback is ever probed: a non-loopback address is
// contacted only when it is the base URL the person typed.
import http from 'node:http';
import https from 'node:https';
import { AgentError, type AgentErrorType, type AgentKind } from './types.js';
import { agentUrl, cleanMessage, errorBodyMessage } from './upstream-errors.js';
import { dialectOf } from './dialect/index.js';
import { refusesTools } from './tools/refusal.js';
import { TOOL_SPECS } from './tools/specs.js';

/** A local port that does not answer this fast has nothing listening worth offering. */
export const LOCAL_PROBE_TIMEOUT_MS = 300;
/** The connection test waits longer, all its requests together: a remote server, a cold start. */
export const TEST_CONNECTION_TIMEOUT_MS = 10_000;
/**
 * Saving a new base URL detects its kind within this: long enough for a remote server, short enough that Save
 * does not hang on one that is down (the kind is then guessed from the port until the next save or Test).
 */
export const DETECT_KIND_TIMEOUT_MS = 5_000;
/** A models list (or a capabilities object, or an error body) is read this far. */
export const MAX_DISCOVERY_BODY_BYTES = 1024 * 1024;
/** The key check's completion asks for one token: it costs next to nothing and proves the key. */
export const KEY_CHECK_MAX_TOKENS = 1;
/** Said by a Test whose server refused a request offering a tool (the turns then go without). */
export const TOOLS_REFUSED_SENTENCE = 'it does not take tools, so Satchel will not offer it its file tools';
/** At most this many model names go into a sentence; the rest are in the model list. */
const MODELS_NAMED = 3;
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
  /** The model the person chose; the key check's completion goes to it (else to the first listed). */
  model?: string;
}
export type ConnectionResult =
  | {
      ok: true;
      models: string[];
      kind: AgentKind;
      /** Whether an authenticated request succeeded (false: "the key could not be checked"). */
      keyChecked: boolean;
      /** The server needs no key at all (every request answered without one). */
      keyless?: boolean;
      host: string;
      /** Whether it took a completion offering one tool (agent/tools/); undefined: not asked, or no clear answer. */
      tools?: boolean;
    }
  | { ok: false; type: AgentErrorType; message: string; hint?: string; models?: string[] };

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

interface Ask {
  apiKey?: string;
  /** A JSON body: the request is a POST. */
  json?: unknown;
  /** A 2xx answer is taken from its status alone (a completion may stream: it is not waited for). */
  statusOnlyOnSuccess?: boolean;
}

/** One request, whole within `timeoutMs` (idle or not); the body read up to MAX_DISCOVERY_BODY_BYTES. */
function ask(url: URL, opts: Ask, timeoutMs: number): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const transport = url.protocol === 'https:' ? https : http;
    const body = opts.json === undefined ? undefined : JSON.stringify(opts.json);
    const headers: http.OutgoingHttpHeaders = { accept: 'application/json' };
    if (opts.apiKey) headers.authorization = `Bearer ${opts.apiKey}`;
    if (body !== undefined) Object.assign(headers, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    const req = transport.request(url, { method: body === undefined ? 'GET' : 'POST', headers, timeout: Math.max(1, timeoutMs) }, (res) => {
      const status = res.statusCode ?? 0;
      if (opts.statusOnlyOnSuccess && status >= 200 && status < 300) {
        resolve({ status, body: '' });
        req.destroy();
        return;
      }
      const parts: Buffer[] = [];
      let size = 0;
      res.on('data', (part: Buffer) => {
        size += part.length;
        if (size > MAX_DISCOVERY_BODY_BYTES) {
          req.destroy();
          resolve({ status, body: '' });
          return;
        }
        parts.push(part);
      });
      res.on('end', () => resolve({ status, body: Buffer.concat(parts).toString('utf8') }));
      res.on('error', reject);
    });
    const timedOut = () => req.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' }));
    req.on('timeout', timedOut);
    // `timeout` above is the socket's idle time: a server trickling a byte now and then would keep it from
    // ever firing. This one bounds the whole exchange: no wait on an agent goes without a deadline.
    const deadline = setTimeout(timedOut, Math.max(1, timeoutMs));
    req.on('close', () => clearTimeout(deadline));
    req.on('error', reject);
    req.end(body);
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

type Failed = Extract<ConnectionResult, { ok: false }>;

const failure = (err: AgentError, models?: string[]): Failed => ({
  ok: false,
  type: err.type,
  message: err.message,
  ...(err.hint ? { hint: err.hint } : {}),
  ...(models ? { models } : {}),
});

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const refusedKey = (status: number) => status === 401 || status === 403;

/** The time left of a deadline, for the next request of several. */
const remaining = (deadline: number) => Math.max(1, deadline - Date.now());

/**
 * Hermes' gateway answers GET /v1/health without a key (`"platform": "hermes-agent"`) and GET /v1/capabilities
 * with one; other servers 404 both. 'hermes' or 'openai' once the server has answered anything, undefined when
 * it could not be reached (nothing to detect). The key goes along only to the address it is meant for: the
 * caller passes the key it will use there, or none.
 */
export async function detectKind(baseUrl: string, apiKey: string | undefined, timeoutMs = DETECT_KIND_TIMEOUT_MS): Promise<AgentKind | undefined> {
  const deadline = Date.now() + timeoutMs;
  let answered = false;
  for (const [rest, key] of [['health', undefined], ['capabilities', apiKey]] as const) {
    try {
      const answer = await ask(agentUrl(baseUrl, rest), { apiKey: key }, remaining(deadline));
      answered = true;
      const body = parseJson(answer.body);
      if (answer.status !== 200 || !isObject(body)) continue;
      if (rest === 'health' ? body.platform === 'hermes-agent' : true) return 'hermes';
    } catch {
      if (Date.now() >= deadline) break;
    }
  }
  return answered ? 'openai' : undefined;
}

function reachFailure(err: unknown, url: URL, timeoutMs: number): Failed {
  const code = (err as NodeJS.ErrnoException).code ?? '';
  if (code === 'ETIMEDOUT') return failure(new AgentError('timeout', `The agent at ${url.host} did not answer within ${Math.round(timeoutMs / 1000)} s.`, 'Check that it is running and not overloaded.'));
  if (code === 'ECONNREFUSED') return failure(new AgentError('unreachable', `Nothing is listening at ${url.host}.`, 'Start the agent, or check the address and port.'));
  return failure(new AgentError('unreachable', `Cannot reach ${url.host}${code ? ` (${code})` : ''}.`, 'Check the address.'));
}

const wrongKey = (host: string, apiKey: string | undefined, status: number) =>
  failure(
    apiKey
      ? new AgentError('auth_error', `The agent at ${host} refused the API key (${status}).`, 'Check the key, or paste it again.')
      : new AgentError('auth_error', `The agent at ${host} needs an API key (${status}).`, 'Enter its key in the API key field.'),
  );

const modelMissing = (host: string, model: string, models: string[]) =>
  failure(
    new AgentError(
      'model_not_found',
      `The agent at ${host} has no model “${model}”.`,
      models.length ? `Pick one of its ${models.length} model${models.length === 1 ? '' : 's'}: ${models.slice(0, MODELS_NAMED).join(', ')}${models.length > MODELS_NAMED ? ', …' : ''}.` : 'Check the model name.',
    ),
    models,
  );

/** The server's model list, and whether reading it took the key. */
type ModelList = { ok: true; models: string[]; listNeedsKey: boolean; host: string } | Failed;

/**
 * GET <base>/v1/models, first without a key: whether the list is open to anyone decides what proves the key
 * (testConnection). A list that needs the key is asked again with it, when there is one.
 */
async function modelList(target: ConnectionTarget, deadline: number, timeoutMs: number): Promise<ModelList> {
  let url: URL;
  try {
    url = agentUrl(target.baseUrl, 'models');
  } catch (err) {
    return failure(err as AgentError);
  }
  const host = url.host;
  let listed: Answer;
  try {
    listed = await ask(url, {}, remaining(deadline));
  } catch (err) {
    return reachFailure(err, url, timeoutMs);
  }
  const listNeedsKey = refusedKey(listed.status);
  if (listNeedsKey) {
    if (!target.apiKey) return wrongKey(host, undefined, listed.status);
    try {
      listed = await ask(url, { apiKey: target.apiKey }, remaining(deadline));
    } catch (err) {
      return reachFailure(err, url, timeoutMs);
    }
    if (refusedKey(listed.status)) return wrongKey(host, target.apiKey, listed.status);
  }
  const models = listed.status === 200 ? modelIds(parseJson(listed.body)) : undefined;
  if (!models) {
    const said = listed.status === 200 ? '' : cleanMessage(errorBodyMessage(listed.body), target.apiKey);
    return failure(
      new AgentError(
        'upstream_error',
        `${host} does not answer like an OpenAI-compatible server (GET /v1/models: ${listed.status}${said ? `, ${said}` : ''}).`,
        'Check the address: it is the server’s base URL, with or without /v1.',
      ),
    );
  }
  return { ok: true, models, listNeedsKey, host };
}

/**
 * The saved agent's models, for a conversation's model picker: the list alone (no kind detection, no key-check
 * completion), within `timeoutMs`.
 */
export async function listModels(target: ConnectionTarget, timeoutMs = TEST_CONNECTION_TIMEOUT_MS): Promise<{ ok: true; models: string[] } | Failed> {
  const listed = await modelList(target, Date.now() + timeoutMs, timeoutMs);
  return listed.ok ? { ok: true, models: listed.models } : listed;
}

/**
 * Whether the server answers like an OpenAI-compatible one, proves the key (or says it could not), has the
 * chosen model, and which kind it is. Every request shares one deadline, `timeoutMs`.
 */
/**
 * A one-token completion to `model`, offering one of Satchel's tools when `withTool` (a server that does not take
 * tools refuses the whole request: agent/tools/refusal.ts). Undefined when it could not be asked.
 */
async function completion(target: ConnectionTarget, model: string, withTool: boolean, deadline: number): Promise<Answer | undefined> {
  const json = {
    model,
    messages: [{ role: 'user', content: 'Hi' }],
    max_tokens: KEY_CHECK_MAX_TOKENS,
    stream: false,
    ...(withTool ? { tools: TOOL_SPECS.slice(0, 1) } : {}),
  };
  try {
    return await ask(agentUrl(target.baseUrl, 'chat/completions'), { apiKey: target.apiKey, json, statusOnlyOnSuccess: true }, remaining(deadline));
  } catch {
    return undefined;
  }
}

/** Whether a completion offering a tool was taken (true), refused for it (false), or neither said (undefined). */
function toolsAnswer(answer: Answer | undefined): boolean | undefined {
  if (!answer) return undefined;
  if (answer.status >= 200 && answer.status < 300) return true;
  return refusesTools(answer.status, errorBodyMessage(answer.body)) ? false : undefined;
}

export async function testConnection(target: ConnectionTarget, timeoutMs = TEST_CONNECTION_TIMEOUT_MS): Promise<ConnectionResult> {
  const deadline = Date.now() + timeoutMs;
  const listed = await modelList(target, deadline, timeoutMs);
  if (!listed.ok) return listed;
  const { models, listNeedsKey, host } = listed;
  const model = target.model?.trim();
  if (model && !models.includes(model)) return modelMissing(host, model, models);
  const kind = (await detectKind(target.baseUrl, target.apiKey, remaining(deadline))) ?? 'openai';
  // Satchel's tools are tried where they would be offered, with the model a turn would use.
  const toolModel = dialectOf(kind).takesSatchelTools ? model || models[0] : undefined;
  if (listNeedsKey) {
    const tools = toolModel ? toolsAnswer(await completion(target, toolModel, true, deadline)) : undefined;
    return { ok: true, models, kind, keyChecked: true, host, ...(tools === undefined ? {} : { tools }) };
  }
  // Hermes' gateway checks one key on every route: an open list means it needs none. A completion there would
  // run the whole agent (its tools included), so none is sent.
  if (!dialectOf(kind).keyCheckByCompletion) return { ok: true, models, kind, keyChecked: true, keyless: true, host };
  const checkModel = model || models[0];
  if (!checkModel) return { ok: true, models, kind, keyChecked: false, host };
  // The list is open to anyone: a one-token completion is what the key is checked by (no tool: a server that
  // refuses tools must not fail the key check).
  const checked = await completion(target, checkModel, false, deadline);
  if (!checked) return { ok: true, models, kind, keyChecked: false, host };
  if (refusedKey(checked.status)) return wrongKey(host, target.apiKey, checked.status);
  if (checked.status === 404 && model && /model/i.test(errorBodyMessage(checked.body))) return modelMissing(host, model, models);
  const ok = checked.status >= 200 && checked.status < 300;
  // Then the same offering one tool, once the plain one was taken: whether turns may offer Satchel's tools.
  const tools = ok && toolModel ? toolsAnswer(await completion(target, toolModel, true, deadline)) : undefined;
  return { ok: true, models, kind, keyChecked: ok, ...(ok && !target.apiKey ? { keyless: true } : {}), host, ...(tools === undefined ? {} : { tools }) };
}

/** A successful test in one sentence: the kind, how many models, what became of the key. */
export function connectedSentence(result: Extract<ConnectionResult, { ok: true }>, hadKey: boolean): string {
  const n = result.models.length;
  const count = n ? `${n} model${n === 1 ? '' : 's'}` : 'no models listed';
  // A typed key that the server never asked for is said so: "no key needed" alone read as the key being ignored
  // by mistake (issue 38). It is still saved and sent, so a server that starts asking for it later gets it.
  const key = !result.keyChecked ? 'the key could not be checked' : result.keyless || !hadKey ? (hadKey ? 'the server asks for no key, so the one typed is not needed' : 'no key needed') : 'key accepted';
  const tools = result.tools === false ? `; ${TOOLS_REFUSED_SENTENCE}` : '';
  return `Connected to ${dialectOf(result.kind).name} at ${result.host}: ${count}, ${key}${tools}.`;
}

/** The local servers that answer on their usual ports (loopback only, a short wait each, all at once). */
export async function discoverLocalAgents(candidates: readonly LocalCandidate[] = LOCAL_AGENT_CANDIDATES, timeoutMs = LOCAL_PROBE_TIMEOUT_MS): Promise<LocalAgent[]> {
  const found = await Promise.all(
    candidates.map(async (candidate): Promise<LocalAgent | undefined> => {
      const baseUrl = `http://${LOOPBACK}:${candidate.port}`;
      try {
        const answer = await ask(agentUrl(baseUrl, 'models'), {}, timeoutMs);
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
