// The composition root: the one place that builds the application from its configuration. It prepares the
// state folder, loads the stores, recovers turns a stop interrupted, wires the agent's turn manager, the MCP
// token and the attachment sweep, and joins the route table to the request lifecycle. The HTTP server around
// it (server/index.ts) only listens and closes; the layers below never build each other, and no handler
// imports another: the route table that names them all is here.
import { setMaxListeners } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import type http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConnectionConfig } from './agent/connections.js';
import { requestBuilder } from './agent/request.js';
import { DocTexts } from './context/doc-text.js';
import type { SecretStore } from './agent/secret-store.js';
import { recoverInterruptedTurns, TurnManager, type TurnDependencies } from './agent/turns.js';
import { streamTurn } from './agent/upstream.js';
import { turnTools } from './agent/tools/turn-tools.js';
import { rememberToolsRefused } from './agent/connections.js';
import { sessionFolder } from './attachments/layout.js';
import { closeSessionFolders } from './attachments/session-folders.js';
import type { ServerConfig } from './core/config.js';
import { startAttachmentSweep } from './drafts/sweep.js';
import { sweepUnfinishedImports } from './export/import-sweep.js';
import { startAttachmentTextBackfill } from './search/backfill.js';
import { newToken } from './http/access.js';
import { createRequestListener, type Handler as HandlerOf, type HandlerInput as HandlerInputOf, type Host, type Route as RouteOf, type RouteTable } from './http/lifecycle.js';
import { serveStatic } from './http/static.js';
import { log } from './core/log.js';
import { attachMcpToken, McpToken, mcpTokenFileStore } from './mcp/token.js';
import { mcpWorkspaceGuard } from './mcp/kept-out.js';
import { DEFAULT_PROFILE } from './store/profiles.js';
import { rememberOwnSecret } from './redact/index.js';
import { EventBus } from './store/events.js';
import { SessionStore, type Session } from './store/sessions.js';
import { SessionDeletions } from './sessions/deletion.js';
import { Workspaces } from './store/workspaces.js';
import { endOffThreadChildren } from './workspace/off-thread.js';
import { InboxWatcher, type InboxOptions } from './inbox/watcher.js';
import { startArrivalPreparation, type ArrivalPreparation } from './inbox/prepare.js';
// The handlers, for the route table below.
import { uploadAndExtract, uploadAttachment } from './handlers/attachments.js';
import { defaultConnectionRoute, deleteConnectionRoute, discoverAgents, getAgentSettings, listAgentModels, listConnectionsRoute, saveAgentSettingsRoute, saveConnectionRoute, testAgent } from './handlers/agent-settings.js';
import { cancelChat, chatContext, chatStream, chatStreamStatus, startChat } from './handlers/chat.js';
import { deleteAttachment, getDraft, putDraft } from './handlers/drafts.js';
import { events } from './handlers/events.js';
import { exportAllSessions, exportSession, importSession } from './handlers/export.js';
import { config, health } from './handlers/health.js';
import { getDatabase, restoreDatabase } from './handlers/database.js';
import { startDatabaseCare, type CareTimings } from './store/database-care.js';
import { listProfiles, switchProfile } from './handlers/profiles.js';
import { showSessionVersion } from './handlers/session-version.js';
import {
  createAgentKey,
  exportLedger,
  getMcpSettings,
  listAgentKeys,
  listLedger,
  pauseAgentKey,
  regenerateMcpToken,
  renameAgentKey,
  revokeAgentKey,
  setAgentKeyGrants,
} from './handlers/mcp-settings.js';
import { mcpEndpoint } from './handlers/mcp.js';
import { AgentKeys, attachAgentKeys } from './mcp/keys.js';
import * as s from './handlers/sessions.js';
import { listSessionReceipts } from './handlers/receipts.js';
import { listMasks, revealMask } from './handlers/reveal.js';
import { deleteFolderRoute, getFolders, moveSessionToFolder, newFolder, renameFolderRoute } from './handlers/folders.js';
import { search } from './handlers/search.js';
import { capability, transcribe } from './handlers/transcribe.js';
import { listWorkspace, previewWorkspaceFile, rawWorkspaceFile, readWorkspaceFile } from './handlers/workspace-browse.js';
import { previewAttachment, rawAttachment } from './handlers/attachment-files.js';
import { listAttachmentFolder } from './handlers/attachment-folder.js';
import { attachmentSummary } from './handlers/attachment-summary.js';
import { extractStoredAttachment } from './handlers/attachment-extract.js';
import { uploadToWorkspace } from './handlers/workspace-upload.js';
import { addWorkspace, listWorkspaces } from './handlers/workspaces.js';
import { getCapture, putCaptureDraft, sendCapture, type InboxResolver } from './handlers/capture.js';
import { changeInboxFolders, getInboxFolders, pauseInbox } from './handlers/inbox.js';
import { ArrivalLog } from './inbox/arrivals.js';
import { inboxSession } from './inbox/session.js';
import { storeStagedAttachment } from './attachments/store-upload.js';

/** What every handler, the MCP tools and the attachment services are handed: the application's parts. */
export interface App extends Host {
  version: string;
  sessions: SessionStore;
  /** Delete with Undo: marks, restores, and purges after the grace period. */
  deletions: SessionDeletions;
  workspaces: Workspaces;
  events: EventBus;
  /** Conversations with the agent: running turns and the frames of recent ones. */
  turns: TurnManager;
  stagingDir: string;
  staticDir: string;
  /** The Inbox folder watcher (inbox/watcher.ts): SATCHEL_INBOX_FOLDERS and the folders the settings add. */
  inbox: InboxWatcher;
  /** The Inbox's arrival rows (inbox/arrivals.ts): what the watcher and "Open with" brought, one row per burst. */
  arrivals: ArrivalLog;
  /** The Inbox conversation of a profile (server/inbox/session.ts), quick capture's `inbox` destination. */
  inboxDestination: InboxResolver;
  /** Arrivals in the Inbox prepared in the background: their chips' summaries, transcripts, OCR (inbox/prepare.ts). */
  inboxPreparation?: ArrivalPreparation;
  /** Where the agent's API key lives (AppOptions.agentKeyStore); unset = agent.json's field. */
  agentKeyStore?: SecretStore;
  /** The agent connection a turn would use, the real one or a test's (AppOptions.agent): the chip's budget reads it. */
  loadAgentConfig: TurnDependencies['loadConfig'];
}

/**
 * What a caller swaps in when it builds the application, beside the plain configuration (core/config.ts): the
 * desktop app its secure key stores and a hook on finished replies, tests a scripted agent, shorter timings, a
 * fake Inbox conversation. Unset = the real part.
 */
export interface AppOptions {
  /** Where the agent's API key lives; unset = agent.json's field (0600). The desktop app passes its secure store. */
  agentKeyStore?: SecretStore;
  /** Where the persistent MCP token lives; unset = `<state>/mcp-token` (0600). The desktop app passes its secure store. */
  mcpTokenStore?: SecretStore;
  /** The agent side (a scripted upstream, a fixed configuration, the desktop's reply hook); unset parts are the real ones. */
  agent?: Partial<TurnDependencies>;
  /** The watcher's timings and limits (inbox/rules.ts); tests shorten them. */
  inbox?: Partial<InboxOptions>;
  /** When the database is checked and backed up (store/database-care.ts, db/backup.ts constants); tests shorten it. */
  databaseCare?: CareTimings;
  /** The Inbox conversation of a profile, for quick capture's `inbox` destination (handlers/capture.ts); unset =
   *  server/inbox/session.ts. `app` is the built application. */
  inboxSession?: (app: App, profile: string) => Promise<Session>;
}

export type HandlerInput = HandlerInputOf<App>;
export type Handler = HandlerOf<App>;
export type Route = RouteOf<App>;

/** The built application: its parts, the request listener that serves them, and how to stop its work. */
export interface BuiltApp {
  app: App;
  listener: http.RequestListener;
  /** Stops the background work: running turns are cancelled and stored, the sweep ends. Idempotent. */
  stop(): Promise<void>;
  /**
   * Nothing was asked for a while (core/idle-collect.ts): the caches a busy spell filled let go of all but what the
   * person comes back to (the conversations and the body last used), before the idle collections give the memory back.
   */
  releaseIdle(): void;
}

const api = (handler: Route['handler'], failure?: string): Route => ({ handler, auth: true, failure });
const open = (handler: Route['handler']): Route => ({ handler, auth: false });
/** The endpoint checks the token itself: it takes the MCP token as well as the launch token (handlers/mcp.ts). */
const mcp = (handler: Route['handler']): Route => ({ handler, auth: false });

/** The route table: every path the server answers, who may call it, and its generic 500 text. */
export const routes: RouteTable<App> = {
  '/health': { GET: open(health) },
  '/api/health/agent': { GET: open(health) },
  '/api/config': { GET: api(config) },
  // The database's state (damaged: one sentence of what to do) and its checked backups; restore one (issue 33).
  '/api/database': { GET: api(getDatabase) },
  '/api/database/restore': { POST: api(restoreDatabase, 'Could not restore the backup') },
  '/api/profiles': { GET: api(listProfiles) },
  '/api/profile/switch': { POST: api(switchProfile) },
  '/api/sessions': { GET: api(s.listSessions) },
  '/api/session': { GET: api(s.getSession) },
  // Search everything of the active profile: titles, messages, attachment names and texts (docs/API.md "Search").
  '/api/search': { GET: api(search, 'Search failed') },
  '/api/session/new': { POST: api(s.newSession) },
  '/api/session/rename': { POST: api(s.renameSession) },
  // Delete with Undo, pin and archive (docs/API.md "Managing sessions"); the person's workspace is never touched.
  '/api/session/delete': { POST: api(s.deleteSession, 'Could not delete the session') },
  '/api/session/restore': { POST: api(s.restoreSession, 'Could not restore the session') },
  '/api/session/pin': { POST: api(s.pinSession, 'Could not pin the session') },
  '/api/session/archive': { POST: api(s.archiveSession, 'Could not archive the session') },
  '/api/session/message': { POST: api(s.addMessage) },
  // Folders to group conversations in (docs/API.md "Folders"); deleting one leaves its conversations in none.
  '/api/folders': { GET: api(getFolders) },
  '/api/folders/new': { POST: api(newFolder, 'Could not make the folder') },
  '/api/folders/rename': { POST: api(renameFolderRoute, 'Could not rename the folder') },
  '/api/folders/delete': { POST: api(deleteFolderRoute, 'Could not delete the folder') },
  '/api/session/folder': { POST: api(moveSessionToFolder, 'Could not move the conversation') },
  '/api/session/version': { POST: api(showSessionVersion) },
  // "Show" on a masked value: where a message's masks are, and one original for this view (docs/API.md "Masked values").
  '/api/session/masks': { POST: api(listMasks, 'Could not find the masked values') },
  '/api/session/reveal': { POST: api(revealMask, 'Could not show the masked value') },
  // Export (a .zip or a .json download) and import (an export becomes a new conversation): docs/API.md "Export and import".
  '/api/session/export': { GET: api(exportSession, 'Could not export the conversation') },
  '/api/sessions/export': { GET: api(exportAllSessions, 'Could not export the conversations') },
  '/api/session/import': { POST: api(importSession, 'Could not import the conversation') },
  // The conversation's own model and system prompt, sent with each of its turns.
  '/api/session/settings': { POST: api(s.setSessionSettings, 'Could not save the conversation settings') },
  // What MCP clients read of the conversation (docs/mcp.md "Read receipts").
  '/api/session/receipts': { GET: api(listSessionReceipts, 'Could not list the read receipts') },
  // The composer's unsent text and chips, kept across reloads and restarts; a removed chip takes its file along.
  '/api/session/draft': { GET: api(getDraft), PUT: api(putDraft, 'Could not save the draft') },
  '/api/session/attachment': { DELETE: api(deleteAttachment, 'Could not delete the attachment') },
  // The quick-capture window (docs/API.md "Quick capture"): its state and draft, and sending to a destination.
  '/api/capture': { GET: api(getCapture) },
  '/api/capture/draft': { PUT: api(putCaptureDraft, 'Could not save the capture draft') },
  '/api/capture/send': { POST: api(sendCapture, 'Could not send the capture') },
  '/api/workspaces': { GET: api(listWorkspaces) },
  '/api/workspaces/add': { POST: api(addWorkspace) },
  // Inbox folders (docs/API.md "Inbox folders"): watched folders, add/remove, pause and resume.
  '/api/inbox/folders': { GET: api(getInboxFolders), POST: api(changeInboxFolders, 'Could not change the watched folders') },
  '/api/inbox/pause': { POST: api(pauseInbox, 'Could not pause or resume watching') },
  '/api/workspace/list': { GET: api(listWorkspace) },
  '/api/workspace/file': { GET: api(readWorkspaceFile) },
  // Previews by kind and raw bytes (images, downloads): docs/API.md "File previews".
  '/api/workspace/preview': { GET: api(previewWorkspaceFile, 'Could not preview the file') },
  '/api/workspace/raw': { GET: api(rawWorkspaceFile) },
  '/api/attachment/preview': { GET: api(previewAttachment, 'Could not preview the attachment') },
  '/api/attachment/raw': { GET: api(rawAttachment) },
  // An extracted archive's files (its chip opens them); a stored archive extracted after a reload.
  '/api/attachment/folder': { GET: api(listAttachmentFolder, 'Could not list the folder') },
  // What the agent will get from an attachment, for its chip (docs/API.md "What the agent gets").
  '/api/attachment/summary': { GET: api(attachmentSummary, 'Could not tell what the agent gets from the attachment') },
  '/api/attachment/extract': { POST: api(extractStoredAttachment, 'Archive extraction failed') },
  '/api/events': { GET: api(events) },
  '/api/chat/start': { POST: api(startChat, 'Could not start the conversation') },
  '/api/chat/stream': { GET: api(chatStream) },
  '/api/chat/stream/status': { GET: api(chatStreamStatus) },
  '/api/chat/cancel': { GET: api(cancelChat), POST: api(cancelChat) },
  '/api/chat/context': { POST: api(chatContext, 'Could not tell what the agent would be given') },
  '/api/agent/settings': { GET: api(getAgentSettings), POST: api(saveAgentSettingsRoute, 'Could not save the agent settings') },
  '/api/agent/test': { POST: api(testAgent, 'The connection test failed') },
  '/api/agent/discover': { GET: api(discoverAgents) },
  // The saved agent's model list, for a conversation's model picker.
  '/api/agent/models': { GET: api(listAgentModels) },
  '/api/agent/connections': { GET: api(listConnectionsRoute), POST: api(saveConnectionRoute, 'Could not save the agent connection') },
  '/api/agent/connections/delete': { POST: api(deleteConnectionRoute, 'Could not delete the agent connection') },
  '/api/agent/connections/default': { POST: api(defaultConnectionRoute, 'Could not change the default agent connection') },
  '/api/upload': { POST: api(uploadAttachment, 'Upload failed') },
  '/api/upload/extract': { POST: api(uploadAndExtract, 'Archive extraction failed') },
  '/api/workspace/upload': { POST: api(uploadToWorkspace, 'Upload failed') },
  '/api/transcribe': { POST: api(transcribe, 'Transcription failed') },
  '/api/transcribe/capability': { GET: api(capability) },
  // The MCP panel: the endpoint, the MCP token and client snippets; regenerate revokes the old token.
  '/api/mcp': { GET: api(getMcpSettings) },
  '/api/mcp/regenerate': { POST: api(regenerateMcpToken, 'Could not make a new MCP token') },
  // Each agent its own key (issue 39, docs/API.md "Agent keys"): keys, grants, the ledger of reads.
  '/api/mcp/keys': { GET: api(listAgentKeys), POST: api(createAgentKey, 'Could not make the agent key') },
  '/api/mcp/keys/rename': { POST: api(renameAgentKey, 'Could not rename the agent key') },
  '/api/mcp/keys/pause': { POST: api(pauseAgentKey, 'Could not pause the agent key') },
  '/api/mcp/keys/revoke': { POST: api(revokeAgentKey, 'Could not revoke the agent key') },
  '/api/mcp/keys/grants': { POST: api(setAgentKeyGrants, 'Could not change the grants') },
  '/api/mcp/ledger': { GET: api(listLedger, 'Could not read the ledger') },
  '/api/mcp/ledger/export': { GET: api(exportLedger, 'Could not export the ledger') },
  // The MCP endpoint (docs/mcp.md): POST requests, GET the notification stream, DELETE ends a session.
  '/mcp': { GET: mcp(mcpEndpoint), POST: mcp(mcpEndpoint), DELETE: mcp(mcpEndpoint) },
};

const here = path.dirname(fileURLToPath(import.meta.url));

function findUp(candidates: string[], probe: (dir: string) => boolean): string {
  return candidates.find(probe) ?? candidates[0]!;
}

function appVersion(): string {
  const file = findUp([path.join(here, '..', 'package.json'), path.join(here, '..', '..', 'package.json')], (f) => {
    try {
      return JSON.parse(readFileSync(f, 'utf8')).name === 'satchel';
    } catch {
      return false;
    }
  });
  try {
    return String(JSON.parse(readFileSync(file, 'utf8')).version ?? '0.0.0');
  } catch {
    return '0.0.0';
  }
}

/** The web UI's folder: beside the compiled server in a build, under dist/ when run from the sources. */
export function defaultStaticDir(): string {
  return findUp([path.join(here, '..', 'renderer'), path.join(here, '..', 'dist', 'renderer')], (d) => existsSync(path.join(d, 'index.html')));
}

export async function createApp(config: ServerConfig, options: AppOptions = {}): Promise<BuiltApp> {
  await fs.mkdir(config.stateDir, { recursive: true, mode: 0o700 });
  const stagingDir = path.join(config.stateDir, 'staging');
  // Staged files from a crash are garbage: nothing can refer to them any more.
  await fs.rm(stagingDir, { recursive: true, force: true });
  await fs.mkdir(stagingDir, { recursive: true, mode: 0o700 });

  const sessions = new SessionStore(config.stateDir);
  const workspaces = new Workspaces(config.stateDir, config.defaultWorkspace);
  await Promise.all([sessions.load(), workspaces.load()]);
  // An import the last run died in leaves nothing (export/import-sweep.ts); before serving, so none is running.
  // Not on a damaged database: what it cannot list may still be a stored conversation's, and its files stay.
  if (!sessions.damage) {
    const stored = (id: string) => sessions.list().some((s) => s.session_id === id) || sessions.getDeleted(id) !== undefined || sessions.unreadable.some((u) => u.session_id === id);
    await sweepUnfinishedImports(config.stateDir, stored).catch((err: unknown) => log.warn('could not sweep unfinished imports', err));
  }
  // Sessions a previous run deleted and did not purge (a crash, or a quit inside the grace period) go when due.
  const deletions = new SessionDeletions(config.stateDir, sessions, config.sessionDeleteGraceMs);
  deletions.start();
  const interrupted = await recoverInterruptedTurns(sessions);
  if (interrupted > 0) log.warn(`${interrupted} conversation turn(s) were interrupted when Satchel last stopped`);

  const stopping = new AbortController();
  // Every request in flight listens for the stop: as many listeners as requests, which is no leak.
  setMaxListeners(0, stopping.signal);
  const events = new EventBus();
  // One store of documents' whole texts for every turn, preview and in-turn tool: a follow-up reads nothing again.
  const docTexts = new DocTexts();
  const agent: TurnDependencies = {
    streamTurn,
    loadConfig: (connection?: string) => loadConnectionConfig(config.stateDir, process.env, options.agentKeyStore, connection),
    buildRequest: requestBuilder(
      config.stateDir,
      (id) => sessionFolder(config.stateDir, id),
      // What the agent got from an attachment (an Office document's Markdown, a transcript) becomes searchable.
      (id, file, text) => void sessions.indexAttachmentText(id, file, text).catch((err: unknown) => log.warn('could not index an attachment\'s text', err)),
      docTexts,
      // The session's workspace, as valid now (removed or made unsafe since: none), walked as MCP walks it.
      async (session) => {
        const dir = await workspaces.validate(session.workspace).catch(() => undefined);
        return dir === undefined ? undefined : { dir, guard: await mcpWorkspaceGuard({ workspaces, sessions }, typeof session.profile === 'string' && session.profile !== '' ? session.profile : DEFAULT_PROFILE) };
      },
    ),
    // Satchel's own tools in a turn (agent/tools/), for the dialects and connections that take them.
    tools: turnTools({
      stateDir: config.stateDir,
      attachmentDir: (id) => sessionFolder(config.stateDir, id),
      workspaces,
      texts: docTexts,
      rememberRefused: (connection) => rememberToolsRefused(config.stateDir, connection, true, process.env, options.agentKeyStore),
    }),
    ...options.agent,
  };
  const turns = new TurnManager(sessions, events, agent);
  // The agent's key becomes known to the redactor before the first request: a session stored by an older
  // version may hold what the agent echoed of it, and GET /api/session or MCP may read it at once.
  agent.loadConfig();
  const token = config.token ?? newToken();
  // The launch token too: pasted bare into a message, it would otherwise be served as it is (redact/known.ts).
  rememberOwnSecret(token);
  const app: App = {
    config,
    token,
    version: appVersion(),
    sessions,
    deletions,
    workspaces,
    events,
    turns,
    stagingDir,
    staticDir: config.staticDir ?? defaultStaticDir(),
    stopping: stopping.signal,
    // The watcher is given what it uses; `app` is read only once a file arrives, when it is built.
    inbox: new InboxWatcher(
      {
        stateDir: config.stateDir,
        maxUploadBytes: config.maxUploadBytes,
        stagingDir,
        workspaces,
        sessions,
        inboxSession: (profile) => inboxSession(app, profile),
        storeStaged: (profile, id, file, alongside) => storeStagedAttachment(app, profile, id, file, alongside),
        announce: (profile, id) => app.arrivals.announce(profile, id),
      },
      config.inboxFolders ?? [],
      options.inbox,
    ),
    arrivals: new ArrivalLog(sessions, events),
    // Quick capture's Inbox destination, the one place it is wired: the same conversation the watched folders fill
    // (a test may give its own).
    inboxDestination: { session: (profile) => (options.inboxSession ?? inboxSession)(app, profile) },
    agentKeyStore: options.agentKeyStore,
    loadAgentConfig: agent.loadConfig,
  };
  app.inboxPreparation = startArrivalPreparation(app);
  // Watched folders (SATCHEL_INBOX_FOLDERS and the settings'), in the background: a slow folder never delays start.
  const inboxStarted = app.inbox.start().catch((err: unknown) => log.warn('inbox: watching could not start', err));
  attachMcpToken(app, await McpToken.open(options.mcpTokenStore ?? mcpTokenFileStore(config.stateDir)));
  attachAgentKeys(app, await AgentKeys.open(sessions));
  // The list's summaries, made in slices now that every known secret is learnt: the window's first list is then
  // not the one that redacts every title (projections/session-list.ts).
  const listWarmed = s.warmSessionList(sessions, stopping.signal).catch((err: unknown) => log.warn('could not prepare the conversation list', err));
  // Uploads never sent and in no draft for a week go (drafts/sweep.ts): now, in the background, then periodically.
  const sweep = startAttachmentSweep(config.stateDir, sessions);
  // The text of attachments stored before the search index took it (search/backfill.ts), in the background.
  const backfill = startAttachmentTextBackfill(config.stateDir, sessions);
  // SQLite's check of the database once started, then a checked backup daily (store/database-care.ts).
  const care = startDatabaseCare(config.stateDir, sessions, options.databaseCare);

  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopped ??= (async () => {
      stopping.abort();
      app.inboxPreparation?.stop();
      await Promise.all([inboxStarted, listWarmed]);
      await Promise.all([turns.stop(), sweep.stop(), deletions.stop(), backfill.stop(), app.inbox.stop(), care.stop()]);
      // The rows of what arrived last, before the store closes.
      await app.arrivals.flush();
      await sessions.close();
      closeSessionFolders(config.stateDir);
      // The OCR and PDF workers' child processes, idle or not: nothing of the server outlives its stop.
      await endOffThreadChildren();
    })();
    return stopped;
  };
  const releaseIdle = (): void => {
    app.sessions.releaseIdle();
    s.releaseIdleBodies(app.sessions);
  };
  return { app, listener: createRequestListener(app, routes, serveStatic), stop, releaseIdle };
}
