// MCP read receipts as GET /api/session/receipts and the `mcp_read` event carry them: the client's name is text
// a client chose (redacted), the read thing's name is a stored name (as it is, like an attachment's filename).
import type * as wire from '../core/wire.js';
import { optional, redactText, serverValue, type RedactedText, type ServerValue } from './brand.js';

export interface PublicReceipt {
  client: RedactedText;
  client_version?: RedactedText;
  kind: ServerValue;
  name: ServerValue;
  first_at: ServerValue;
  last_at: ServerValue;
  count: number;
}

export function publicReceipt(r: wire.McpReceipt): PublicReceipt {
  return {
    client: redactText(r.client),
    client_version: optional(r.client_version, redactText),
    kind: serverValue(r.kind),
    name: serverValue(r.name),
    first_at: serverValue(r.first_at),
    last_at: serverValue(r.last_at),
    count: r.count,
  };
}
