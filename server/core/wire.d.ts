// The HTTP API's shapes as they travel (docs/API.md): one declaration for the server that sends them and the
// renderer that reads them (`import type` from both sides). A declaration file, so the renderer's compiler can
// use it without compiling server code, and nothing of it exists at run time.
// The shapes are split by topic under wire/ (each file one part of docs/API.md); this file re-exports them all,
// so every importer (`import type … from '…/core/wire.js'`) keeps one name to import from.

export type * from './wire/attachments.js';
export type * from './wire/sessions.js';
export type * from './wire/chat.js';
export type * from './wire/agent.js';
export type * from './wire/workspace.js';
export type * from './wire/events.js';
export type * from './wire/capture.js';
export type * from './wire/config.js';
export type * from './wire/inbox.js';
export type * from './wire/database.js';
