import { describe, expect, it } from 'vitest';
import { chooseRuntime, cliArgv, parseMainArgs } from './args.js';

describe('parseMainArgs', () => {
  it('finds --server-only among Electron and Chromium arguments', () => {
    expect(parseMainArgs(['.', '--no-sandbox', '--server-only', '--remote-debugging-port=0'])).toEqual({
      serverOnly: true,
      flags: {},
    });
    expect(parseMainArgs(['/opt/Satchel/satchel'])).toEqual({ serverOnly: false, flags: {} });
  });
  it('reads --port/--host/--state-dir in both spellings', () => {
    expect(parseMainArgs(['--server-only', '--port', '8123', '--host=0.0.0.0', '--state-dir', '/tmp/s'])).toEqual({
      serverOnly: true,
      flags: { port: '8123', host: '0.0.0.0', stateDir: '/tmp/s' },
    });
    expect(parseMainArgs(['--state-dir=/a=b']).flags).toEqual({ stateDir: '/a=b' });
  });
  it('rejects a flag without its value', () => {
    expect(() => parseMainArgs(['--port'])).toThrow('Missing value for --port');
    expect(() => parseMainArgs(['--port', '--server-only'])).toThrow('Missing value for --port');
    expect(() => parseMainArgs(['--host='])).toThrow('Missing value for --host');
  });
  it('does not mistake look-alike flags', () => {
    expect(parseMainArgs(['--portable', '--server-only-not', '--hostname=x'])).toEqual({ serverOnly: false, flags: {} });
  });
});

describe('cliArgv', () => {
  it('removes only the mode flag', () => {
    expect(cliArgv(['--server-only', '--port', '0', '--state-dir', '/s'])).toEqual(['--port', '0', '--state-dir', '/s']);
  });
});

describe('chooseRuntime', () => {
  const node = { node: '20.19.0' } as NodeJS.ProcessVersions;
  const electron = { node: '22.0.0', electron: '45.4.1' } as NodeJS.ProcessVersions;
  it('runs the Electron entry whenever Electron is present', () => {
    expect(chooseRuntime(electron, [])).toBe('electron');
    expect(chooseRuntime(electron, ['--server-only'])).toBe('electron');
  });
  it('under plain Node, serves with --server-only and otherwise explains', () => {
    expect(chooseRuntime(node, ['--server-only'])).toBe('node-server');
    expect(chooseRuntime(node, [])).toBe('node-usage');
  });
});
