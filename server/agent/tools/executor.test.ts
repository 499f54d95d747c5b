// The executor on its own, over a real workspace: confined to it (a folder symlinked out, a protected place, a
// hidden file refused or left out), bounded (a long file cut with a note of what is left), and a workspace file
// found by search_documents.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DocTexts } from '../../context/doc-text.js';
import { ProtectedPlaceError, type PlaceGuard } from '../../store/protected.js';
import { ToolExecutor, type ToolScope } from './executor.js';
import { MAX_TOOL_RESULT_CHARS } from './limits.js';

/** pandoc writes the test's .docx (an Office file converted by the content engine). */
const PANDOC = (() => {
  try {
    execFileSync('pandoc', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

let tmp: string;
let workspace: string;
const signal = new AbortController().signal;

/** A guard that marks one folder a protected place, as the state folder inside a home-folder workspace is. */
function guardOf(place: string): PlaceGuard {
  const isPlace = (dir: string) => path.resolve(dir) === place;
  return {
    fresh: async () => undefined,
    isPlace,
    check: (dir) => {
      if (isPlace(dir)) throw new ProtectedPlaceError();
    },
  };
}

function executor(): ToolExecutor {
  const scope: ToolScope = {
    sessionId: '0123456789ab',
    docs: [],
    workspace,
    guard: guardOf(path.join(workspace, 'state')),
    texts: new DocTexts(),
    read: { roots: [path.join(tmp, 'attachments')] },
  };
  return new ToolExecutor(async () => scope);
}

beforeAll(async () => {
  tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-tools-')));
  workspace = path.join(tmp, 'ws');
  await fs.mkdir(path.join(workspace, 'state'), { recursive: true });
  await fs.mkdir(path.join(tmp, 'attachments'));
  await fs.mkdir(path.join(tmp, 'elsewhere'));
  await fs.writeFile(path.join(tmp, 'elsewhere', 'secret.txt'), 'ELSEWHERE-SECRET');
  await fs.symlink(path.join(tmp, 'elsewhere'), path.join(workspace, 'linked'));
  await fs.writeFile(path.join(workspace, 'state', 'agent.json'), '{"apiKey": "STATE-SECRET"}');
  await fs.writeFile(path.join(workspace, '.hidden.md'), 'HIDDEN-SECRET');
  await fs.writeFile(path.join(workspace, 'long.txt'), 'lorem ipsum '.repeat(5000));
  await fs.writeFile(path.join(workspace, 'ferry.md'), '# Ferry\n\nThe ferry to Porto leaves at 7:40 from pier 3.\n');
});
afterAll(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

describe('ToolExecutor over a workspace', () => {
  it('lists the workspace without hidden files, protected places or what a symlink leads to', async () => {
    const { text, isError } = await executor().run('list_files', '{}', signal);
    expect(isError).toBe(false);
    expect(text).toContain('- ferry.md (');
    expect(text).toContain('- long.txt (');
    expect(text).toContain('This conversation has no documents.');
    for (const hidden of ['.hidden.md', 'agent.json', 'secret.txt', tmp]) expect(text).not.toContain(hidden);
  });

  it('refuses a folder symlinked out, a protected place and a hidden file, each in one sentence', async () => {
    const ex = executor();
    for (const name of ['linked/secret.txt', 'state/agent.json', '.hidden.md']) {
      const { text, isError } = await ex.run('read_file', JSON.stringify({ name }), signal);
      expect(isError, name).toBe(true);
      expect(text, name).not.toMatch(/SECRET|\n/);
      expect(text, name).not.toContain(tmp);
    }
    expect((await ex.run('read_file', '{"name": "linked/secret.txt"}', signal)).text).toMatch(/^Refused: "linked\/secret\.txt" leads out of the workspace\.$/);
  });

  it('cuts a long file at MAX_TOOL_RESULT_CHARS with a note of what is left, and finds a workspace file by search', async () => {
    const ex = executor();
    const long = await ex.run('read_file', '{"name": "long.txt"}', signal);
    expect(long.text.length).toBeLessThan(MAX_TOOL_RESULT_CHARS + 300);
    expect(long.text).toMatch(/\[Shown: the first 20,000 of 60,0\d\d characters\. Ask search_documents for the passage you need\.\]$/);
    const found = await ex.run('search_documents', '{"query": "when does the ferry leave"}', signal);
    expect(found.text).toContain('--- "ferry.md", section "Ferry" ---');
    expect(found.text).toContain('7:40 from pier 3');
  });

  it.skipIf(!PANDOC)("reads an Office file of the workspace without leaving its Markdown sidecar there (read-only)", async () => {
    const source = path.join(tmp, 'memo.md');
    await fs.writeFile(source, '# Memo\n\nShip on Friday.\n');
    execFileSync('pandoc', [source, '-o', path.join(workspace, 'memo.docx')]);
    const before = (await fs.readdir(workspace)).sort();
    const read = await executor().run('read_file', '{"name": "memo.docx"}', signal);
    expect(read).toMatchObject({ isError: false });
    expect(read.text).toContain('Ship on Friday.');
    expect((await fs.readdir(workspace)).sort()).toEqual(before);
  });
});
