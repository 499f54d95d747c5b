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
import { ValueError } from '../core/errors.js';
import { readJsonBody } from '../http/body.js';
import { sendJson } from '../http/respond.js';
import { parseGrants } from '../mcp/grants.js';
import { getFolder } from '../store/folders.js';
import type { StoredGrant } from '../store/mcp-keys.js';
import { agentKeysOf, type AgentKeys } from '../mcp/keys.js';
import { closeKeySessions } from '../mcp/sessions.js';
import { LAUNCH_KEY_ID } from '../mcp/scope.js';
import { publicAgentKey, publicLedgerEntry } from '../projections/index.js';
import { MAX_LEDGER_EXPORT, MAX_LEDGER_PAGE, queryLedger, type LedgerEntry, type LedgerQuery } from '../store/mcp-ledger.js';

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

// Each agent its own key (issue 39; docs/API.md "Agent keys"): list, make (its token shown once), rename, pause
// and resume, revoke, grants; the ledger's pages and its export as JSON or CSV.

export const LEDGER_FORMAT_INVALID = 'format must be json or csv';
export const LEDGER_LIMIT_INVALID = `limit must be a whole number from 1 to ${MAX_LEDGER_PAGE}`;
export const LEDGER_BEFORE_INVALID = 'before must be a positive whole number';
/** Rows read per step of an export: the database serves other requests between two. */
const EXPORT_STEP = 5000;

function keysOf(input: HandlerInput): AgentKeys {
  const keys = agentKeysOf(input.app);
  if (!keys) throw new HttpError(503, 'Agent keys are not available');
  return keys;
}

async function sendKey(input: HandlerInput, key: Parameters<typeof publicAgentKey>[0]): Promise<void> {
  await sendJson(input.ctx, 200, { key: publicAgentKey(key) });
}

export async function listAgentKeys(input: HandlerInput): Promise<void> {
  await sendJson(input.ctx, 200, { keys: keysOf(input).list().map(publicAgentKey) });
}

/**
 * `{name, kind?, grants?}` → `{key, token, url, clients}`: the token and the snippets that hold it, this once.
 * Sent without the redactor, as GET /api/mcp is: it would mask the very token it hands over (and the token is
 * known to it from this moment, so it is masked everywhere else).
 */
/** The grants `value` holds; a folder grant must name a folder of the profile (404 `Folder not found`), so a
 *  mistyped id is told rather than kept granting nothing. */
async function grantsOf(input: HandlerInput, value: unknown): Promise<StoredGrant[]> {
  const grants = parseGrants(value);
  for (const g of grants) if (g.kind === 'folder') await input.app.sessions.query((q) => getFolder(q, input.profile, g.target));
  return grants;
}

export async function createAgentKey(input: HandlerInput): Promise<void> {
  const body = await readJsonBody(input.ctx);
  const grants = body.grants === undefined ? [] : await grantsOf(input, body.grants);
  const { key, token } = await keysOf(input).create(body.name, body.kind, grants);
  const url = `http://${input.ctx.req.headers.host ?? ''}${MCP_PATH}`;
  sendText(input.ctx, 200, jsonBody({ key: publicAgentKey(key), token, url, clients: clientSnippets(url, token) }), { contentType: 'application/json; charset=utf-8' });
}

/** `{id, name}`. */
export async function renameAgentKey(input: HandlerInput): Promise<void> {
  const body = await readJsonBody(input.ctx);
  await sendKey(input, await keysOf(input).rename(body.id, body.name));
}

/** `{id, paused: true|false}`: a paused key's next request is refused (403); its sessions end. */
export async function pauseAgentKey(input: HandlerInput): Promise<void> {
  const body = await readJsonBody(input.ctx);
  const key = await keysOf(input).setPaused(body.id, body.paused);
  if (key.paused) closeKeySessions(input.app, key.id);
  await sendKey(input, key);
}

/** `{id}`: for good; its next request is refused (401) and its open sessions end now. */
export async function revokeAgentKey(input: HandlerInput): Promise<void> {
  const body = await readJsonBody(input.ctx);
  const key = await keysOf(input).revoke(body.id);
  closeKeySessions(input.app, key.id);
  await sendKey(input, key);
}

/** `{id, grants: [...]}`: replaces the key's grants; its next call sees the new ones. */
export async function setAgentKeyGrants(input: HandlerInput): Promise<void> {
  const body = await readJsonBody(input.ctx);
  const grants = await grantsOf(input, body.grants);
  await sendKey(input, await keysOf(input).setGrants(body.id, grants));
}

function wholeNumber(value: string | null, max: number, message: string): number | undefined {
  if (value === null) return undefined;
  if (!/^\d{1,16}$/.test(value)) throw new ValueError(message);
  const n = Number(value);
  if (n < 1 || n > max) throw new ValueError(message);
  return n;
}

/** The filters a ledger request names: `key_id`, `session_id` (either may be left out), `before` an id. */
function ledgerFilter(input: HandlerInput): Omit<LedgerQuery, 'limit'> {
  const params = input.ctx.url.searchParams;
  const keyId = params.get('key_id');
  const sessionId = params.get('session_id');
  // An unknown key is a 404 (the launch token's rows are under LAUNCH_KEY_ID, which no key row holds).
  if (keyId !== null && keyId !== LAUNCH_KEY_ID) keysOf(input).get(keyId);
  return {
    ...(keyId !== null ? { key_id: keyId } : {}),
    ...(sessionId !== null && sessionId !== '' ? { session_id: sessionId.slice(0, 64) } : {}),
    ...(params.get('before') !== null ? { before: wholeNumber(params.get('before'), Number.MAX_SAFE_INTEGER, LEDGER_BEFORE_INVALID) } : {}),
  };
}

/** GET /api/mcp/ledger?key_id=&session_id=&before=&limit=: newest first; `next` is the `before` of the next page. */
export async function listLedger(input: HandlerInput): Promise<void> {
  const filter = ledgerFilter(input);
  const limit = wholeNumber(input.ctx.url.searchParams.get('limit'), MAX_LEDGER_PAGE, LEDGER_LIMIT_INVALID) ?? 100;
  const rows = await input.app.sessions.transaction((q) => queryLedger(q, { ...filter, limit }));
  const next = rows.length === limit ? rows[rows.length - 1]!.id : undefined;
  await sendJson(input.ctx, 200, { entries: rows.map(publicLedgerEntry), ...(next !== undefined ? { next } : {}) });
}

const CSV_COLUMNS = ['id', 'at', 'key_id', 'op', 'outcome', 'session_id', 'kind', 'name', 'range', 'query', 'bytes', 'sha256'] as const;

/** A CSV field: quoted when it must be; a leading = + - @ is prefixed with ' so a spreadsheet never runs it. */
function csvField(value: unknown): string {
  let text = value === null || value === undefined ? '' : String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** GET /api/mcp/ledger/export?format=json|csv&key_id=&session_id=: every row the filter names, newest first. */
export async function exportLedger(input: HandlerInput): Promise<void> {
  const format = input.ctx.url.searchParams.get('format') ?? 'json';
  if (format !== 'json' && format !== 'csv') throw new ValueError(LEDGER_FORMAT_INVALID);
  const filter = ledgerFilter(input);
  const rows: ReturnType<typeof publicLedgerEntry>[] = [];
  let before = filter.before;
  while (rows.length < MAX_LEDGER_EXPORT) {
    const page: LedgerEntry[] = await input.app.sessions.transaction((q) => queryLedger(q, { ...filter, ...(before !== undefined ? { before } : {}), limit: EXPORT_STEP }));
    rows.push(...page.map(publicLedgerEntry));
    if (page.length < EXPORT_STEP) break;
    before = page[page.length - 1]!.id;
  }
  const name = `satchel-mcp-ledger.${format}`;
  // More than one file holds: the next export starts `before` this id.
  const more: Record<string, string> = rows.length >= MAX_LEDGER_EXPORT ? { 'X-Satchel-Ledger-Next': String(rows[rows.length - 1]!.id) } : {};
  const headers: Record<string, string> = { 'Content-Disposition': `attachment; filename="${name}"`, ...more };
  if (format === 'json') {
    sendText(input.ctx, 200, jsonBody({ entries: rows }), { contentType: 'application/json; charset=utf-8', headers });
    return;
  }
  const lines = [CSV_COLUMNS.join(','), ...rows.map((r) => CSV_COLUMNS.map((c) => csvField(r[c])).join(','))];
  sendText(input.ctx, 200, Buffer.from(lines.join('\r\n') + '\r\n', 'utf8'), { contentType: 'text/csv; charset=utf-8', headers });
}
