// The tools of a reply as its stored row keeps them: bounded in count and length, one line, redacted before the cut.
import { describe, expect, it } from 'vitest';
import { CUT_MARK, MAX_STORED_TOOLS, MAX_TOOL_NAME_CHARS, MAX_TOOL_PREVIEW_CHARS, oneLine, ToolActivityLog } from './activity.js';

describe('oneLine', () => {
  it('puts the text on one line and cuts it at the bound with the mark, never inside a character', () => {
    expect(oneLine('  ls -la\n\t/tmp  ', 40)).toBe('ls -la /tmp');
    expect(oneLine('abcdefghij', 6)).toBe(`abcde${CUT_MARK}`);
    expect(oneLine('abcd😀efgh', 6)).toBe(`abcd${CUT_MARK}`);
    expect(oneLine('abcdef', 6)).toBe('abcdef');
  });
});

describe('ToolActivityLog', () => {
  it('keeps tools in the order they started, with how each ended and its duration', () => {
    const log = new ToolActivityLog();
    log.started('a', 'read_file', 'notes.md');
    log.started('b', 'terminal', 'make test');
    log.completed('b', 'terminal', 'make test', 2.5, true);
    log.completed('a', 'read_file', 'notes.md', 0.3, false);
    log.completed('c', 'web_search', 'lisbon trains', 1, false);
    log.started('d', 'terminal', 'sleep 60');
    expect(log.rows()).toEqual([
      { name: 'read_file', preview: 'notes.md', status: 'finished', duration_seconds: 0.3 },
      { name: 'terminal', preview: 'make test', status: 'failed', duration_seconds: 2.5 },
      { name: 'web_search', preview: 'lisbon trains', status: 'finished', duration_seconds: 1 },
      { name: 'terminal', preview: 'sleep 60', status: 'stopped' },
    ]);
  });

  it('masks a key before cutting, so a cut never leaves the start of one a rule no longer sees', () => {
    const log = new ToolActivityLog();
    const key = 'sk-proj-9fK2mQ7vX1bN4tR8wZ3cL6hJ0pY5sD2g';
    const long = `${'x '.repeat(MAX_TOOL_PREVIEW_CHARS / 2 - 5)}${key}`;
    log.started('a', 'n'.repeat(MAX_TOOL_NAME_CHARS * 2), long);
    const [row] = log.rows();
    expect(row!.name).toHaveLength(MAX_TOOL_NAME_CHARS);
    expect(row!.preview.length).toBeLessThanOrEqual(MAX_TOOL_PREVIEW_CHARS);
    expect(row!.preview.endsWith(CUT_MARK)).toBe(true);
    // Cut first, the key's first characters would stay, too short for any rule to know them as a key.
    expect(row!.preview).not.toContain('sk-proj-9');
    expect(row!.preview).toContain('sk-pro');
  });

  it(`keeps ${MAX_STORED_TOOLS} tools and counts the rest`, () => {
    const log = new ToolActivityLog();
    for (let i = 0; i < MAX_STORED_TOOLS + 3; i++) {
      log.started(`t${i}`, 'tool', `${i}`);
      log.completed(`t${i}`, 'tool', `${i}`, 0.1, false);
    }
    expect(log.rows()).toHaveLength(MAX_STORED_TOOLS);
    expect(log.omitted).toBe(3);
    expect(log.size).toBe(MAX_STORED_TOOLS + 3);
  });
});
