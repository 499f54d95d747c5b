// The route table: every path the server answers, who may call it, and its generic 500 text.
import type { App, Route } from '../app.js';
import type { RouteTable } from '../http/lifecycle.js';
import { uploadAndExtract, uploadAttachment } from './attachments.js';
import { discoverAgents, getAgentSettings, saveAgentSettingsRoute, testAgent } from './agent-settings.js';
import { cancelChat, chatStream, chatStreamStatus, startChat } from './chat.js';
import { deleteAttachment, getDraft, putDraft } from './drafts.js';
import { events } from './events.js';
import { config, health } from './health.js';
import { listProfiles, switchProfile } from './profiles.js';
import { getMcpSettings, regenerateMcpToken } from './mcp-settings.js';
import { mcpEndpoint } from '../mcp/endpoint.js';
import * as s from './sessions.js';
import { capability, transcribe } from './transcribe.js';
import { listWorkspace, previewWorkspaceFile, rawWorkspaceFile, readWorkspaceFile } from './workspace-browse.js';
import { previewAttachment, rawAttachment } from './attachment-files.js';
import { listAttachmentFolder } from './attachment-folder.js';
import { extractStoredAttachment } from './attachment-extract.js';
import { uploadToWorkspace } from './workspace-upload.js';
import { addWorkspace, listWorkspaces } from './workspaces.js';

const api = (handler: Route['handler'], failure?: string): Route => ({ handler, auth: true, failure });
const open = (handler: Route['handler']): Route => ({ handler, auth: false });
/** The endpoint checks the token itself: it takes the MCP token as well as the launch token (mcp/endpoint.ts). */
const mcp = (handler: Route['handler']): Route => ({ handler, auth: false });

export const routes: RouteTable<App> = {
  '/health': { GET: open(health) },
  '/api/health/agent': { GET: open(health) },
  '/api/config': { GET: api(config) },
  '/api/profiles': { GET: api(listProfiles) },
  '/api/profile/switch': { POST: api(switchProfile) },
  '/api/sessions': { GET: api(s.listSessions) },
  '/api/session': { GET: api(s.getSession) },
  '/api/session/new': { POST: api(s.newSession) },
  '/api/session/rename': { POST: api(s.renameSession) },
  '/api/session/message': { POST: api(s.addMessage) },
  // The composer's unsent text and chips, kept across reloads and restarts; a removed chip takes its file along.
  '/api/session/draft': { GET: api(getDraft), PUT: api(putDraft, 'Could not save the draft') },
  '/api/session/attachment': { DELETE: api(deleteAttachment, 'Could not delete the attachment') },
  '/api/workspaces': { GET: api(listWorkspaces) },
  '/api/workspaces/add': { POST: api(addWorkspace) },
  '/api/workspace/list': { GET: api(listWorkspace) },
  '/api/workspace/file': { GET: api(readWorkspaceFile) },
  // Previews by kind and raw bytes (images, downloads): docs/API.md "File previews".
  '/api/workspace/preview': { GET: api(previewWorkspaceFile, 'Could not preview the file') },
  '/api/workspace/raw': { GET: api(rawWorkspaceFile) },
  '/api/attachment/preview': { GET: api(previewAttachment, 'Could not preview the attachment') },
  '/api/attachment/raw': { GET: api(rawAttachment) },
  // An extracted archive's files (its chip opens them); a stored archive extracted after a reload.
  '/api/attachment/folder': { GET: api(listAttachmentFolder, 'Could not list the folder') },
  '/api/attachment/extract': { POST: api(extractStoredAttachment, 'Archive extraction failed') },
  '/api/events': { GET: api(events) },
  '/api/chat/start': { POST: api(startChat, 'Could not start the conversation') },
  '/api/chat/stream': { GET: api(chatStream) },
  '/api/chat/stream/status': { GET: api(chatStreamStatus) },
  '/api/chat/cancel': { GET: api(cancelChat), POST: api(cancelChat) },
  '/api/agent/settings': { GET: api(getAgentSettings), POST: api(saveAgentSettingsRoute, 'Could not save the agent settings') },
  '/api/agent/test': { POST: api(testAgent, 'The connection test failed') },
  '/api/agent/discover': { GET: api(discoverAgents) },
  '/api/upload': { POST: api(uploadAttachment, 'Upload failed') },
  '/api/upload/extract': { POST: api(uploadAndExtract, 'Archive extraction failed') },
  '/api/workspace/upload': { POST: api(uploadToWorkspace, 'Upload failed') },
  '/api/transcribe': { POST: api(transcribe, 'Transcription failed') },
  '/api/transcribe/capability': { GET: api(capability) },
  // The MCP panel: the endpoint, the MCP token and client snippets; regenerate revokes the old token.
  '/api/mcp': { GET: api(getMcpSettings) },
  '/api/mcp/regenerate': { POST: api(regenerateMcpToken, 'Could not make a new MCP token') },
  // The MCP endpoint (docs/mcp.md): POST requests, GET the notification stream, DELETE ends a session.
  '/mcp': { GET: mcp(mcpEndpoint), POST: mcp(mcpEndpoint), DELETE: mcp(mcpEndpoint) },
};
