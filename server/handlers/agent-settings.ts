// The agent's settings for the UI (docs/spec-notes.md, "Chat: configuration"): read them (never the key), save
// them. The settings themselves live in agent/config.ts.
import { publicAgentSettings, publicFrom, readStoredAgentSettings, sameAgentAddress, isAgentKind } from '../agent/config.js';
import {
  ConnectionError,
  defaultConnection,
  deleteConnection,
  isConnectionId,
  listConnections,
  loadConnectionConfig,
  MAIN_CONNECTION_ID,
  publicConnections,
  rememberToolsRefused,
  saveConnection,
  setDefaultConnection,
  storedConnection,
  type SaveConnection,
} from '../agent/connections.js';
import { connectedSentence, detectKind, discoverLocalAgents, listModels, testConnection, type ConnectionResult } from '../agent/discover.js';
import { NO_AGENT, NO_AGENT_HINT } from '../agent/turn-texts.js';
import { BAD_AGENT_KIND, kindLabels } from '../agent/dialect/index.js';
import { HttpError, ValueError } from '../core/errors.js';
import type { HandlerInput } from '../app.js';
import { readJsonBody } from '../http/body.js';
import { sendJson } from '../http/respond.js';
import { knownSecrets, SecretMatcher } from '../redact/index.js';
import { publicAgentConnections, publicAgentKinds, publicAgentModels, publicAgentSettings as project, publicAgentTest, publicDiscovered } from '../projections/index.js';
import type * as wire from '../core/wire.js';

/** The default connection's settings: what GET and POST /api/agent/settings show (the original's clients). */
function defaultSettings(app: HandlerInput['app']): wire.AgentSettings {
  const chosen = defaultConnection(app.config.stateDir, process.env, app.agentKeyStore);
  return chosen ? publicFrom(chosen.settings, process.env) : publicAgentSettings(app.config.stateDir, process.env, app.agentKeyStore);
}

export async function getAgentSettings({ ctx, app }: HandlerInput): Promise<void> {
  await sendJson(ctx, 200, settingsAnswer(app));
}

/** The default connection's settings, with the kinds the page names (it declares none of its own). */
function settingsAnswer(app: HandlerInput['app']) {
  return { ...project(defaultSettings(app)), kinds: publicAgentKinds(kindLabels()) };
}

const optionalNumber = (value: unknown, field: string): number | undefined => {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new ValueError(`Invalid agent setting ${field}`);
  return value;
};

/**
 * Body `{base_url, model, api_key?, keep_api_key?, kind?, timeout_ms?, context_chars?}`, saved to the default
 * connection. api_key omitted keeps the stored key at the same address; a new address gets it only with
 * `keep_api_key: true` (else it is removed); '' removes it. A new address has its kind detected (discover.ts,
 * detectKind): `kind` is taken as given only while the address stays the same.
 */
export async function saveAgentSettingsRoute({ ctx, app }: HandlerInput): Promise<void> {
  const body = await readJsonBody(ctx);
  const id = defaultConnection(app.config.stateDir, process.env, app.agentKeyStore)?.id ?? MAIN_CONNECTION_ID;
  await saveFromBody(app, body, id);
  await sendJson(ctx, 200, settingsAnswer(app));
}

/** Checks a save's body and saves it to connection `id` (undefined: a new one); returns the id saved. */
async function saveFromBody(app: HandlerInput['app'], body: Record<string, unknown>, id: string | undefined): Promise<string> {
  if (typeof body.base_url !== 'string' || !body.base_url.trim()) throw new ValueError('base_url is required');
  if (body.model !== undefined && body.model !== null && typeof body.model !== 'string') throw new ValueError('Invalid agent setting model');
  if (body.api_key !== undefined && body.api_key !== null && typeof body.api_key !== 'string') throw new ValueError('Invalid agent setting api_key');
  if (body.keep_api_key !== undefined && body.keep_api_key !== null && typeof body.keep_api_key !== 'boolean') throw new ValueError('Invalid agent setting keep_api_key: expected true or false');
  if (body.kind !== undefined && body.kind !== null && body.kind !== '' && !isAgentKind(body.kind)) throw new ValueError(BAD_AGENT_KIND);
  if (body.name !== undefined && body.name !== null && typeof body.name !== 'string') throw new ValueError('Invalid agent setting name');
  if (body.tools !== undefined && body.tools !== null && typeof body.tools !== 'boolean') throw new ValueError('Invalid agent setting tools: expected true or false');
  const baseUrl = body.base_url.trim();
  const { stateDir } = app.config;
  const { agentKeyStore } = app;
  const stored = id === MAIN_CONNECTION_ID ? readStoredAgentSettings(stateDir) : id === undefined ? undefined : storedConnection(stateDir, id, agentKeyStore);
  if (id !== undefined && id !== MAIN_CONNECTION_ID && !stored) throw new HttpError(404, 'Agent connection not found');
  const moved = !sameAgentAddress(stored?.baseUrl, baseUrl);
  const typedKey = typeof body.api_key === 'string' ? body.api_key.trim() : undefined;
  // The kind belongs to the address: a new one is probed as a fresh state folder's Test probes it, with the key
  // that will be sent there (the one typed, or the saved one the person chose to keep), never another.
  // At the same address, a save that names no kind keeps the one stored (it was detected for this address).
  let kind = isAgentKind(body.kind) ? body.kind : stored?.kind;
  if (moved) {
    const savedKey = body.keep_api_key === true && id !== undefined ? loadConnectionConfig(stateDir, process.env, agentKeyStore, id)?.apiKey : undefined;
    kind = await detectKind(baseUrl, typedKey || savedKey);
  }
  const next: SaveConnection = {
    ...(id === undefined ? {} : { id }),
    ...(typeof body.name === 'string' ? { name: body.name } : {}),
    baseUrl,
    model: typeof body.model === 'string' ? body.model : '',
    ...(typeof body.api_key === 'string' ? { apiKey: body.api_key } : {}),
    ...(body.keep_api_key === true ? { keepApiKey: true } : {}),
    ...(kind ? { kind } : {}),
    timeoutMs: optionalNumber(body.timeout_ms, 'timeout_ms'),
    contextChars: optionalNumber(body.context_chars, 'context_chars'),
    ...(typeof body.tools === 'boolean' ? { tools: body.tools } : {}),
  };
  try {
    return await saveConnection(stateDir, next, agentKeyStore);
  } catch (err) {
    if (err instanceof ConnectionError) throw new HttpError(err.status, err.message);
    // config.ts names the bad field, never its value.
    if (err instanceof Error && err.message.startsWith('Invalid agent setting')) throw new ValueError(err.message);
    throw err;
  }
}

/** A connection id from a client: `main` or 16 hex digits, else a 400 (never looked up). */
function connectionId(value: unknown): string {
  if (!isConnectionId(value)) throw new ValueError('Invalid connection id');
  return value;
}

async function sendConnections(ctx: HandlerInput['ctx'], app: HandlerInput['app'], id?: string): Promise<void> {
  const answer = publicConnections(app.config.stateDir, process.env, app.agentKeyStore);
  await sendJson(ctx, 200, publicAgentConnections({ ...answer, ...(id ? { id } : {}) }));
}

/** GET /api/agent/connections: every saved connection (never a key), which one is the default, the limits. */
export async function listConnectionsRoute({ ctx, app }: HandlerInput): Promise<void> {
  await sendConnections(ctx, app);
}

/** POST /api/agent/connections: the settings' body plus `name`, and `id` to change one (none: add one). */
export async function saveConnectionRoute({ ctx, app }: HandlerInput): Promise<void> {
  const body = await readJsonBody(ctx);
  const id = body.id === undefined || body.id === null ? undefined : connectionId(body.id);
  await sendConnections(ctx, app, await saveFromBody(app, body, id));
}

/** POST /api/agent/connections/delete `{id}`: 409 for the default (make another the default first). */
export async function deleteConnectionRoute({ ctx, app }: HandlerInput): Promise<void> {
  const body = await readJsonBody(ctx);
  await connectionChange(() => deleteConnection(app.config.stateDir, connectionId(body.id), process.env, app.agentKeyStore));
  await sendConnections(ctx, app);
}

/** POST /api/agent/connections/default `{id}`. */
export async function defaultConnectionRoute({ ctx, app }: HandlerInput): Promise<void> {
  const body = await readJsonBody(ctx);
  await connectionChange(() => setDefaultConnection(app.config.stateDir, connectionId(body.id), process.env, app.agentKeyStore));
  await sendConnections(ctx, app);
}

async function connectionChange(change: () => Promise<void>): Promise<void> {
  try {
    await change();
  } catch (err) {
    if (err instanceof ConnectionError) throw new HttpError(err.status, err.message);
    throw err;
  }
}

/** The saved connection a Test or a model list is about: `id`'s (404 when there is none), else the default's. */
function savedConfig(app: HandlerInput['app'], id: unknown) {
  const { stateDir } = app.config;
  const { agentKeyStore } = app;
  if (id === undefined || id === null || id === '') return loadConnectionConfig(stateDir, process.env, agentKeyStore);
  const chosen = connectionId(id);
  if (!listConnections(stateDir, process.env, agentKeyStore).connections.some((c) => c.id === chosen)) throw new HttpError(404, 'Agent connection not found');
  return loadConnectionConfig(stateDir, process.env, agentKeyStore, chosen);
}

/**
 * Body `{base_url?, api_key?, model?, connection?}`; without base_url the saved connection (`connection`'s, else
 * the default) is tested. The saved key is used only
 * for the saved address: typing another address never sends the stored key to it. The kind is always
 * detected again (a `kind` in the body is ignored); the answer says in one sentence what was proved.
 */
export async function testAgent({ ctx, app }: HandlerInput): Promise<void> {
  const body = await readJsonBody(ctx);
  const saved = savedConfig(app, body.connection);
  const baseUrl = typeof body.base_url === 'string' && body.base_url.trim() ? body.base_url.trim() : saved?.baseUrl;
  if (!baseUrl) throw new ValueError('base_url is required');
  const apiKey = typeof body.api_key === 'string' ? body.api_key.trim() || undefined : saved && sameAgentAddress(baseUrl, saved.baseUrl) ? saved.apiKey : undefined;
  const model = typeof body.model === 'string' && body.model.trim() ? body.model.trim() : body.base_url === undefined ? saved?.model || undefined : undefined;
  let result = withoutEchoedKey(await testConnection({ baseUrl, ...(apiKey ? { apiKey } : {}), ...(model ? { model } : {}) }), apiKey);
  // A key is saved but belongs to another address: say why none was sent, rather than only that one is needed.
  if (!result.ok && result.type === 'auth_error' && !apiKey && saved?.apiKey) {
    result = { ...result, hint: `The saved key goes only to ${hostOf(saved.baseUrl)}: type the key here, or Save and keep it for this address.` };
  }
  // Whether the saved server takes Satchel's tools is remembered on its connection (turns then offer them or not).
  if (result.ok && result.tools !== undefined && saved && sameAgentAddress(baseUrl, saved.baseUrl)) {
    await rememberToolsRefused(app.config.stateDir, savedId(body.connection), !result.tools, process.env, app.agentKeyStore);
  }
  const answer: wire.AgentTestResponse = result.ok
    ? {
        ok: true,
        models: result.models,
        kind: result.kind,
        key_checked: result.keyChecked,
        message: connectedSentence(result, apiKey !== undefined),
        ...(result.tools === undefined ? {} : { tools: result.tools }),
      }
    : { ok: false, type: result.type, message: result.message, ...(result.hint ? { hint: result.hint } : {}), ...(result.models ? { models: result.models } : {}) };
  await sendJson(ctx, 200, publicAgentTest(answer) satisfies wire.AgentTestResponse);
}

/**
 * GET /api/agent/models[?connection=<id>]: the connection's models (the default's without one), for a conversation's model picker (the Test's list, read
 * again with the saved key from the saved address only), and the model the settings name. A failure is said
 * in the Test's words with status 200: the list is a convenience, the picker then offers the saved model.
 */
export async function listAgentModels({ ctx, app }: HandlerInput): Promise<void> {
  const saved = savedConfig(app, ctx.url.searchParams.get('connection'));
  let answer: wire.AgentModelsResponse;
  if (!saved) answer = { ok: false, type: 'no_agent', message: NO_AGENT, hint: NO_AGENT_HINT };
  else {
    const listed = withoutEchoedKey(await listModels({ baseUrl: saved.baseUrl, ...(saved.apiKey ? { apiKey: saved.apiKey } : {}) }), saved.apiKey);
    answer = listed.ok
      ? { ok: true, models: listed.models, model: saved.model }
      : { ok: false, type: listed.type, message: listed.message, ...(listed.hint ? { hint: listed.hint } : {}) };
  }
  await sendJson(ctx, 200, publicAgentModels(answer) satisfies wire.AgentModelsResponse);
}

/** The connection a Test names (checked by savedConfig before), or undefined for the default. */
function savedId(id: unknown): string | undefined {
  return id === undefined || id === null || id === '' ? undefined : connectionId(id);
}

function hostOf(baseUrl: string): string {
  try {
    return new URL(baseUrl).host;
  } catch {
    return 'the saved address';
  }
}

/**
 * The answer without a model whose name holds the key being tested or a known one (`model-<key>`): an agent
 * that echoes the key there would have it shown, and offered as the model to save. Dropped, not masked: a
 * masked name is no model the agent has.
 */
function withoutEchoedKey<R extends ConnectionResult | { ok: true; models: string[] }>(result: R, apiKey: string | undefined): R {
  const tested = new SecretMatcher(apiKey ? [apiKey] : []);
  // A key typed for the test is not known to the redactor yet: its forms are masked in the server's words here.
  const known = knownSecrets();
  const keep = (models: string[]) => models.filter((m) => !tested.holds(m) && !known.holds(m));
  if (!result.ok) {
    return {
      ...result,
      message: tested.mask(result.message),
      ...(result.hint ? { hint: tested.mask(result.hint) } : {}),
      ...(result.models ? { models: keep(result.models) } : {}),
    };
  }
  return { ...result, models: keep(result.models) };
}

export async function discoverAgents({ ctx }: HandlerInput): Promise<void> {
  const found = await discoverLocalAgents();
  const agents = found.map((a) => ({ kind: a.kind, base_url: a.baseUrl, label: a.label, ...(a.needsKey ? { needs_key: true } : {}) }));
  await sendJson(ctx, 200, publicDiscovered(agents) satisfies wire.AgentDiscoverResponse);
}
