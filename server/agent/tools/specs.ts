// Satchel's own tools as the agent is offered them (OpenAI's function tools): what each does in a sentence the
// model reads, and the JSON schema of its arguments. Run by executor.ts inside the turn (loop.ts), never by the
// agent's server; offered only to a dialect that takes them (dialect.ts `takesSatchelTools`), per connection.
import type { ToolSpec } from '../types.js';
import { MAX_PAGES_PER_READ, MAX_QUERY_CHARS, MAX_TOOL_RESULT_CHARS } from './limits.js';

export const LIST_FILES = 'list_files';
export const READ_FILE = 'read_file';
export const SEARCH_DOCUMENTS = 'search_documents';
export const SATCHEL_TOOL_NAMES: readonly string[] = [LIST_FILES, READ_FILE, SEARCH_DOCUMENTS];

const fn = (name: string, description: string, properties: Record<string, unknown>, required: string[]): ToolSpec => ({
  type: 'function',
  function: { name, description, parameters: { type: 'object', properties, required, additionalProperties: false } },
});

export const TOOL_SPECS: readonly ToolSpec[] = [
  fn(LIST_FILES, "List the conversation's documents (attachments) and the files of its workspace folder, by the names read_file takes.", {}, []),
  fn(
    READ_FILE,
    `Read one document of the conversation or one file of its workspace, by its name as listed (or its satchel:// URI). ` +
      `Optionally a page range such as "2-3" (at most ${MAX_PAGES_PER_READ} pages). At most ${MAX_TOOL_RESULT_CHARS} characters come back, with a note of what is left.`,
    {
      name: { type: 'string', description: 'The document\'s name as listed, a workspace path such as "notes/plan.md", or a satchel:// URI.' },
      pages: { type: 'string', description: 'Pages, slides or sheets to read: "2", "2-3" or "1,4". Omit to read from the start.' },
    },
    ['name'],
  ),
  fn(
    SEARCH_DOCUMENTS,
    "Search the conversation's documents and workspace files for passages that answer a question; the best passages come back, each labelled with its file and page.",
    { query: { type: 'string', description: `What to look for, in words (at most ${MAX_QUERY_CHARS} characters).` } },
    ['query'],
  ),
];

