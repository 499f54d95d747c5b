// The workspace panel's words on what the agent gets from the folder (issue 36).
import { describe, expect, it } from 'vitest';
import { NO_WORKSPACE_AGENT_NOTE, WORKSPACE_AGENT_NOTE, workspaceAgentNote } from './workspace-words.js';

describe('what the workspace panel says the agent gets', () => {
  it('with a workspace: its name and file list with every message, new or changed files read in full, the rest searched, never its place on disk', () => {
    const note = workspaceAgentNote({ workspace: '/home/ana/proj' });
    expect(note).toBe(WORKSPACE_AGENT_NOTE);
    expect(note).toContain('With every message, the agent gets this folder\u2019s name and a list of its files.');
    expect(note).toContain('Files new or changed since your last message are read in full');
    expect(note).toContain('the others are searched for the passages that answer your question');
    expect(note).toContain('the agent is never told where the folder is on your disk');
    // The words never show the folder's path themselves.
    expect(note).not.toContain('/home/ana');
  });

  it('without a workspace, only what is attached; before a conversation, nothing', () => {
    expect(workspaceAgentNote({ workspace: '' })).toBe(NO_WORKSPACE_AGENT_NOTE);
    expect(workspaceAgentNote({})).toBe('Without a workspace folder, the agent gets only the files you attach to your messages.');
    expect(workspaceAgentNote(null)).toBe('');
  });
});
