// Where the agent's API key lives (agent.md, "Configuration"). The settings code asks a SecretStore and never
// knows which one it has: the desktop app hands in one backed by the system's secure storage
// (main/secret-file-store.ts); otherwise the key is agent.json's `apiKey` field, in a file of mode 0600
// (config.ts, agentJsonKeyStore). This module names the seam and nothing else, so it imports nothing: Electron
// stays out of server/.

export interface SecretStore {
  /** The stored key, or undefined when there is none (or it cannot be read: that is logged, never the value). */
  get(): string | undefined;
  /** Stores the key; undefined removes it. Never logs the value. */
  set(value: string | undefined): Promise<void>;
  /**
   * How the saved agent connections' other keys are kept at rest (connections.ts): the desktop app encrypts them
   * with the system's secure storage, as it does this one; without it they are text in a file of mode 0600.
   */
  seal?: KeySeal;
}

/** A key to the text stored for it and back; `open` throws when the text is not one it sealed. */
export interface KeySeal {
  seal(value: string): string;
  open(sealed: string): string;
}
