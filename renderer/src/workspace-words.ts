// What the workspace panel says the agent gets from the folder (issue 36): the panel invites drops, and a person
// reads that as "the agent will see them", so it says in words what the agent is given each turn
// (server/context/workspace.ts) and what it never is. Pure, for its test; workspace.ts puts it on the page.

/** Said under the folder when the conversation has a workspace. */
export const WORKSPACE_AGENT_NOTE =
  'With every message, the agent gets this folder\u2019s name and a list of its files. Files new or changed since your ' +
  'last message are read in full; the others are searched for the passages that answer your question. Hidden files ' +
  'and saved passwords or keys are left out, and the agent is never told where the folder is on your disk.';

/** Said when the conversation has no workspace folder: the agent then gets only what is attached. */
export const NO_WORKSPACE_AGENT_NOTE = 'Without a workspace folder, the agent gets only the files you attach to your messages.';

/** The note for the panel: none before a conversation is open. */
export function workspaceAgentNote(session: { workspace?: unknown } | null): string {
  if (!session) return '';
  return typeof session.workspace === 'string' && session.workspace !== '' ? WORKSPACE_AGENT_NOTE : NO_WORKSPACE_AGENT_NOTE;
}
