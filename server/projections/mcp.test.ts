// MCP results leave through projections like JSON responses do: the JSON text of a tool result is made only
// from projected values (a plain string does not compile), names the server wrote go out as they are, and
// the text is the pretty JSON agents have always read.
import { describe, expect, it } from 'vitest';
import { mcpJson, publicMcpAttachmentResource, publicMcpAttachmentSummary, publicMcpBinaryFile, redactText, type McpText } from './index.js';

const TOKEN_NAME = `ghp_${'a1B2c3D4e5'.repeat(3)}a1B2c3.md`;

describe('MCP projections', () => {
  it('refuses, by type, a string nobody classified', () => {
    const name: string = TOKEN_NAME;
    // @ts-expect-error a plain string is neither RedactedText nor ServerValue
    expect(mcpJson({ name })).toContain(TOKEN_NAME);
    const record: { files: string[] } = { files: [name] };
    // @ts-expect-error a record read from disk is not a projection
    expect(mcpJson(record)).toContain(TOKEN_NAME);
    // @ts-expect-error a result's text is a projected value too
    const text: McpText = name;
    expect(text).toBe(TOKEN_NAME);
  });

  it('sends names verbatim, in the field order and pretty JSON agents read', () => {
    const archive = mcpJson(publicMcpAttachmentSummary({ kind: 'archive', name: 'pack', files: [`in/${TOKEN_NAME}`], truncated: false }));
    expect(archive).toBe(JSON.stringify({ kind: 'archive', name: 'pack', files: [`in/${TOKEN_NAME}`], truncated: false }, null, 2));
    const binary = mcpJson(publicMcpAttachmentSummary({ kind: 'binary', name: TOKEN_NAME, mime: 'application/octet-stream', size: 3, note: 'binary file: content not returned' }));
    expect(Object.keys(JSON.parse(binary))).toEqual(['kind', 'name', 'mime', 'size', 'note']);
    expect(JSON.parse(binary).name).toBe(TOKEN_NAME);
    expect(JSON.parse(mcpJson(publicMcpBinaryFile(`docs/${TOKEN_NAME}`, 3)))).toEqual({ path: `docs/${TOKEN_NAME}`, size: 3, note: 'binary file: content not returned' });
  });

  it('describes a listed attachment by its redacted session title', () => {
    const title = redactText(`Keys ${TOKEN_NAME.slice(0, -3)}`);
    expect(title).not.toContain(TOKEN_NAME.slice(0, -3));
    expect(publicMcpAttachmentResource(title, { name: TOKEN_NAME, type: 'file', size: 12, mtime: '' }, 'satchel://x')).toEqual({
      uri: 'satchel://x',
      name: TOKEN_NAME,
      description: `${title}: 12 bytes`,
    });
  });
});

describe('MCP failures', () => {
  it('are free text: a refusal that quotes what the agent asked for masks a credential in it', async () => {
    const { failureText } = await import('../mcp/server.js');
    const { McpDataError } = await import('../mcp/data.js');
    const token = 'ghp_' + 'Q7rT9wE2yU4iO6pA8sD0fG1hJ3kL5zX7cV9bN2m';
    expect(failureText(new McpDataError(`No file named ${token}`))).toBe('No file named ghp_Q7...bN2m');
    expect(failureText(new McpDataError('Path escapes workspace'))).toBe('Path escapes workspace');
  });
});
