import { describe, expect, it } from 'vitest';
import { parseServerArgs, USAGE } from './args.js';

describe('parseServerArgs', () => {
  const ARGV = ['--server-only', '--port', '8123', '--host=0.0.0.0', '--state-dir', '/tmp/s'];

  it('reads the table’s flags the same way for both entry points', () => {
    const expected = { serverOnly: true, help: false, flags: { port: '8123', host: '0.0.0.0', stateDir: '/tmp/s' } };
    expect(parseServerArgs(ARGV, 'reject')).toEqual(expected);
    expect(parseServerArgs(ARGV, 'ignore')).toEqual(expected);
    expect(parseServerArgs(['--state-dir=/a=b', '--port', '1', '--port', '2'], 'reject').flags).toEqual({
      stateDir: '/a=b',
      port: '2',
    });
  });

  it('refuses a flag without its value in both modes', () => {
    for (const mode of ['reject', 'ignore'] as const) {
      expect(() => parseServerArgs(['--port'], mode)).toThrow('Missing value for --port');
      expect(() => parseServerArgs(['--port', '--server-only'], mode)).toThrow('Missing value for --port');
      expect(() => parseServerArgs(['--host='], mode)).toThrow('Missing value for --host');
    }
  });

  it('under plain Node refuses what it does not know; under Electron ignores it', () => {
    expect(() => parseServerArgs(['--bogus'], 'reject')).toThrow("Unknown option '--bogus'");
    expect(() => parseServerArgs(['--portable'], 'reject')).toThrow("Unknown option '--portable'");
    expect(() => parseServerArgs(['extra'], 'reject')).toThrow(
      "Unexpected argument 'extra'. This command does not take positional arguments",
    );
    expect(() => parseServerArgs(['--server-only=1'], 'reject')).toThrow("Option '--server-only' does not take an argument");
    expect(parseServerArgs(['.', '--no-sandbox', '--remote-debugging-port=0', '--portable'], 'ignore')).toEqual({
      serverOnly: false,
      help: false,
      flags: {},
    });
  });

  it('knows --help and -h', () => {
    expect(parseServerArgs(['-h'], 'reject').help).toBe(true);
    expect(parseServerArgs(['--help'], 'reject').help).toBe(true);
  });

  it('builds the usage line from the table', () => {
    expect(USAGE).toBe('Usage: satchel-serve [--port N] [--host H] [--state-dir DIR]');
  });
});
