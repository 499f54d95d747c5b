// Satchel's tools as the app hands them to the turn manager (app.ts): each turn's executor over the
// conversation as it was when the turn started (its shown rows and the new turn's attachments), its workspace
// as validated for every other reader, and the protected places; a refusal of tools remembered on the
// conversation's connection.
import { log } from '../../core/log.js';
import type { DocTexts } from '../../context/doc-text.js';
import { conversationDocs } from '../../context/documents.js';
import type { StoredMessage } from '../../context/types.js';
import type { Workspaces } from '../../store/workspaces.js';
import { ToolExecutor } from './executor.js';
import type { TurnTools } from './loop.js';

export interface TurnToolsDependencies {
  stateDir: string;
  /** The one folder a session's attachments are read from. */
  attachmentDir: (sessionId: string) => string;
  workspaces: Pick<Workspaces, 'validate' | 'protectedPlaces'>;
  texts: DocTexts;
  /** Remembers on the connection (connections.ts rememberToolsRefused) that its server refused tools. */
  rememberRefused: (connection: string | undefined) => Promise<void>;
}

export function turnTools(deps: TurnToolsDependencies): TurnTools {
  return {
    runner: (build) =>
      new ToolExecutor(async () => {
        const id = build.session.session_id;
        const rows: StoredMessage[] = [...build.session.messages, { role: 'user', content: build.text, attachments: build.attachments }];
        // A workspace that is gone or no longer allowed is none: the tools then read the documents alone.
        const workspace = await deps.workspaces.validate(build.session.workspace).catch(() => undefined);
        return {
          sessionId: id,
          docs: conversationDocs(id, rows),
          ...(workspace ? { workspace } : {}),
          guard: deps.workspaces.protectedPlaces,
          texts: deps.texts,
          read: { roots: [deps.attachmentDir(id)], stateDir: deps.stateDir },
        };
      }),
    refused: (connection) => deps.rememberRefused(connection).catch((err: unknown) => log.warn('could not remember that the agent refused tools', err)),
  };
}
