// The MCP token (docs/mcp.md, "Access"): a second, persistent access token that opens /mcp and nothing else,
// so an agent configured once keeps working across restarts while the launch token may change at every start.
// It lives in a SecretStore: `<state>/mcp-token` (mode 0600) by default, the system's secure storage in the
// desktop app (main/secret-file-store.ts). Held in memory after start: every /mcp request compares against
// it without touching the disk; regenerating replaces it at once.
import path from 'node:path';
import type { SecretStore } from '../agent/secret-store.js';
import { newToken, tokensEqual } from '../http/access.js';
import type { App } from '../app.js';
import { log } from '../core/log.js';
import { rememberOwnSecret } from '../redact/index.js';
import { fileSecretStore } from '../store/secret-file.js';

export const MCP_TOKEN_FILE = 'mcp-token';

/** `<state>/mcp-token`, mode 0600: server-only mode's store, and the desktop's where no keyring protects it. */
export function mcpTokenFileStore(stateDir: string): SecretStore {
  const warned = new Set<string>();
  return fileSecretStore(path.join(stateDir, MCP_TOKEN_FILE), (why) => {
    if (warned.has(why)) return;
    warned.add(why);
    log.warn(`MCP token: ${MCP_TOKEN_FILE} ${why}; a new token is made`);
  });
}

export class McpToken {
  private constructor(
    private readonly store: SecretStore,
    private current: string,
  ) {
    // Masked wherever text leaves (a token pasted into a message is no longer served to MCP clients).
    rememberOwnSecret(current);
  }

  /** The stored token, or a new one stored now. A store that cannot save still yields a token for this run. */
  static async open(store: SecretStore): Promise<McpToken> {
    const stored = store.get();
    if (stored) return new McpToken(store, stored);
    const token = new McpToken(store, newToken());
    try {
      await store.set(token.current);
    } catch (err) {
      log.warn('MCP token: could not be saved; it lasts until Satchel stops', (err as Error).message);
    }
    return token;
  }

  get value(): string {
    return this.current;
  }

  matches(given: string): boolean {
    return tokensEqual(given, this.current);
  }

  /** A new token, saved first: when saving fails the old one stays valid (and the error reaches the caller). */
  async regenerate(): Promise<string> {
    const next = newToken();
    await this.store.set(next);
    this.current = next;
    rememberOwnSecret(next);
    return next;
  }
}

const tokens = new WeakMap<App, McpToken>();

export function attachMcpToken(app: App, token: McpToken): void {
  tokens.set(app, token);
}

/** The app's MCP token; undefined for an app built without one (then /mcp takes the launch token only). */
export function mcpTokenOf(app: App): McpToken | undefined {
  return tokens.get(app);
}
