import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { backoffDelay, eventData, RECONNECT_MAX_MS, RECONNECT_MIN_MS } from './events.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));

describe('backoffDelay', () => {
  it('doubles from the minimum and caps, within the jitter band', () => {
    expect(backoffDelay(0, () => 0.5)).toBe(RECONNECT_MIN_MS);
    expect(backoffDelay(3, () => 0.5)).toBe(8 * RECONNECT_MIN_MS);
    expect(backoffDelay(50, () => 0.5)).toBe(RECONNECT_MAX_MS);
    expect(backoffDelay(0, () => 0)).toBe(RECONNECT_MIN_MS * 0.8);
    expect(backoffDelay(0, () => 1)).toBe(RECONNECT_MIN_MS * 1.2);
  });
});

describe('eventData', () => {
  it('is the object an event carries, and null for anything else (the event is then dropped)', () => {
    expect(eventData('{"session_id":"s1","title":"Plans"}')).toEqual({ session_id: 's1', title: 'Plans' });
    expect(eventData('{"session_id":')).toBeNull();
    expect(eventData('null')).toBeNull();
    expect(eventData('"s1"')).toBeNull();
    expect(eventData('[]')).toBeNull();
  });
});

/**
 * Type-checks `source` as a module of the page (renderer/tsconfig.json's options) and returns its errors as
 * "line: TS<code>". The page's test files are not compiled by `npm run typecheck`, so the check runs here.
 */
function pageTypeErrors(source: string): string[] {
  const configPath = path.join(HERE, '..', 'tsconfig.json');
  const config = ts.readConfigFile(configPath, (p) => ts.sys.readFile(p));
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, path.dirname(configPath));
  const file = path.join(HERE, '__events-typing-check.ts');
  const host = ts.createCompilerHost({ ...options, noEmit: true });
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version, ...rest) => (path.resolve(name) === file ? ts.createSourceFile(name, source, version) : getSourceFile(name, version, ...rest));
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => path.resolve(name) === file || fileExists(name);
  const program = ts.createProgram([file], { ...options, noEmit: true }, host);
  const sf = program.getSourceFile(file)!;
  return ts.getPreEmitDiagnostics(program, sf).map((d) => `${d.file ? sf.getLineAndCharacterOfPosition(d.start ?? 0).line + 1 : 0}: TS${d.code}`);
}

describe("server events are typed by the server's own map (wire/events.d.ts)", () => {
  it("a handler for each event gets that event's data, with no cast", () => {
    const ok = [
      "import { connectEvents } from './events.js';",
      'connectEvents({',
      '  session_renamed: (data) => { const title: string = data.title; void title; },',
      "  capture_sent: (data) => { if (data.destination === 'ask') void data.session_id.length; },",
      '  session_updated: (data) => { const at: string | undefined = data.updated_at; void at; },',
      '  mcp_read: (data) => void data.receipt.client,',
      '});',
    ].join('\n');
    expect(pageTypeErrors(ok)).toEqual([]);
  }, 60_000);

  it('a handler for an event the server does not send, or for another shape, does not compile', () => {
    const bad = [
      "import { connectEvents } from './events.js';",
      'connectEvents({ session_archived: () => undefined });',
      'connectEvents({ session_deleted: (data) => void data.title });',
      'connectEvents({ session_updated: (data: { session_id: number }) => void data });',
      "connectEvents({ capture_sent: (data) => void (data.destination === 'elsewhere') });",
    ].join('\n');
    // 2353: not a known property (an unknown event); 2339: no such field in its data; 2322: the handler's
    // parameter is not the event's data; 2367: a destination the server never sends.
    expect(pageTypeErrors(bad)).toEqual(['2: TS2353', '3: TS2339', '4: TS2322', '5: TS2367']);
  }, 60_000);
});
