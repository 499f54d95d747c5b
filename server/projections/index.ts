// Every value a response, an event stream or an MCP result carries is built here (docs/architecture.md,
// "Projections"): free text through the redactor, the server's own ids, paths and names verbatim. The JSON
// responder only takes what these return (brand.ts `PublicJson`).
export { cutRedacted, publicJsonLine, redactText, redactedJson, streamRedacted, type PublicJson, type RedactedJson, type RedactedText, type ServerValue } from './brand.js';
export * from './sessions.js';
export * from './workspace.js';
export * from './events.js';
export * from './frames.js';
export * from './responses.js';
export * from './drafts.js';
export * from './mcp.js';
export * from './search.js';
export * from './receipts.js';
export * from './mcp-keys.js';
export * from './folders.js';
