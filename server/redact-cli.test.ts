import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough, Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, runRedactCli, USAGE } from './redact-cli.js';
import { findPrivateKeyBegin, findPrivateKeyEnd, redact, REDACTED_PRIVATE_KEY } from './redact/index.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const SPAWN_DEADLINE_MS = 20_000;
const FLUSH_DEADLINE_MS = 5_000;

const KEY_BLOCK = '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA0Z3VS5JJcds3xfn\n/ygWyF8PbnGy0AHB7MhgHcTz6sE2\n-----END RSA PRIVATE KEY-----';

/** The CLI's contract: private-key blocks are cut out across lines, then every line is redacted as its own string. */
function lineByLine(text: string): string {
  let cut = '';
  let pos = 0;
  for (let begin = findPrivateKeyBegin(text); begin !== null; begin = findPrivateKeyBegin(text, pos)) {
    cut += text.slice(pos, begin.start) + REDACTED_PRIVATE_KEY;
    const end = findPrivateKeyEnd(text, begin.end);
    pos = end === null ? text.length : end.end;
    if (end === null) break;
  }
  cut += text.slice(pos);
  return cut.split('\n').map(redact).join('\n');
}

/** Collects everything written, as a string. */
function sink(): { stream: Writable; text: () => string } {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
      callback();
    },
  });
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

/** Feeds `bytes` in pieces cut at the given offsets (which may fall inside a UTF-8 character). */
function chunked(bytes: Buffer, cuts: number[]): Readable {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const pieces: Buffer[] = [];
  let last = 0;
  for (const p of points) {
    pieces.push(bytes.subarray(last, p));
    last = p;
  }
  pieces.push(bytes.subarray(last));
  return Readable.from(pieces.filter((p) => p.length > 0));
}

async function runText(text: string, cuts: number[] = [], args: string[] = []): Promise<string> {
  const out = sink();
  const code = await runRedactCli(chunked(Buffer.from(text, 'utf8'), cuts), out.stream, args);
  expect(code).toBe(EXIT_OK);
  return out.text();
}

describe('redact-cli text mode', () => {
  it('redacts line by line and keeps every newline', async () => {
    const input = 'one TOKEN=abc\nAuthorization: Bearer abcdefghijklmnopqrstuvwxyz\n\nplain line\nlast ghp_abcdefghij';
    expect(await runText(input, [5, 17, 40])).toBe(
      'one TOKEN=***\nAuthorization: Bearer abcdef...wxyz\n\nplain line\nlast ***',
    );
  });

  it('cuts out a private-key block spanning lines and chunks', async () => {
    const input = `before SECRET=x\nlead ${KEY_BLOCK} tail TOKEN=y\nafter\n`;
    const expected = 'before SECRET=***\nlead [REDACTED PRIVATE KEY] tail TOKEN=***\nafter\n';
    expect(await runText(input, [])).toBe(expected);
    for (let cut = 1; cut < input.length; cut += 7) expect(await runText(input, [cut, cut + 3])).toBe(expected);
  });

  it('redacts an unterminated block to the end of the input', async () => {
    expect(await runText('ok\n-----BEGIN PRIVATE KEY-----\nMIIE\nmore\n')).toBe('ok\n[REDACTED PRIVATE KEY]');
  });

  it('handles two blocks on one line and a block closing and reopening', async () => {
    const inline = '-----BEGIN EC PRIVATE KEY-----abc-----END EC PRIVATE KEY-----';
    expect(await runText(`${inline} mid ${inline}\n${KEY_BLOCK}\n${KEY_BLOCK}\nend`)).toBe(
      '[REDACTED PRIVATE KEY] mid [REDACTED PRIVATE KEY]\n[REDACTED PRIVATE KEY]\n[REDACTED PRIVATE KEY]\nend',
    );
  });

  it('keeps multi-byte characters split across chunks intact', async () => {
    const input = 'héllo wörld 😀 PASSWORD=пароль\n';
    const bytes = Buffer.from(input, 'utf8');
    for (let cut = 1; cut < bytes.length; cut++) expect(await runText(input, [cut])).toBe('héllo wörld 😀 PASSWORD=***\n');
  });

  it('gives exactly redact(whole input), which is also each line redacted on its own, for any text and any chunking', async () => {
    const fragments = [
      '\n', '\r\n', ' ', '=', '"', "'", '\\', 'TOKEN', 'auth', 'Authorization: Bearer ', 'abcdefghijklmnopqrst',
      'sk-', 'ghp_', 'AKIA', 'ABCDEFGHIJKLMNOP', '-----BEGIN RSA PRIVATE KEY-----', '-----END RSA PRIVATE KEY-----',
      '[REDACTED PRIVATE KEY]', 'é', '😀', 'word', '\u200b', '\t', 'password: ', '"api_key": "', 'https://u:', '@h', '+4915',
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom(...fragments), { maxLength: 80 }),
        fc.array(fc.nat(4000), { maxLength: 6 }),
        async (parts, cuts) => {
          const text = parts.join('');
          const out = await runText(text, cuts);
          expect(out).toBe(redact(text));
          expect(out).toBe(lineByLine(text));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('streams: a line is written before the input ends', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const done = runRedactCli(input, output, []);
    const first = new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no output before the deadline')), FLUSH_DEADLINE_MS);
      output.once('data', (chunk: Buffer) => {
        clearTimeout(timer);
        resolve(chunk.toString('utf8'));
      });
    });
    input.write('PASSWORD=first\npartial');
    expect(await first).toBe('PASSWORD=***\n');
    input.end(' TOKEN=z');
    expect(await done).toBe(EXIT_OK);
    expect(output.read()?.toString('utf8')).toBe('partial TOKEN=***');
  });

  it('stops quietly with exit 0 when the reader goes away', async () => {
    const broken = new Writable({
      write(_chunk, _encoding, callback) {
        callback(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
      },
    });
    const lines = Readable.from((function* () {
      for (let i = 0; i < 100_000; i++) yield `line ${i} TOKEN=abc\n`;
    })());
    const code = await Promise.race([
      runRedactCli(lines, broken, []),
      new Promise((_, reject) => setTimeout(() => reject(new Error('did not stop')), FLUSH_DEADLINE_MS)),
    ]);
    expect(code).toBe(EXIT_OK);
  });

  it('rejects an unknown argument with exit 2 and prints usage for --help', async () => {
    const out = sink();
    const stderrWrite = process.stderr.write;
    let stderr = '';
    process.stderr.write = ((chunk: string) => {
      stderr += chunk;
      return true;
    }) as typeof process.stderr.write;
    try {
      expect(await runRedactCli(Readable.from([]), out.stream, ['--bogus'])).toBe(EXIT_USAGE);
    } finally {
      process.stderr.write = stderrWrite;
    }
    expect(stderr).toBe(`Unknown argument: --bogus\n${USAGE}`);
    expect(await runRedactCli(Readable.from([]), out.stream, ['--help'])).toBe(EXIT_OK);
    expect(out.text()).toBe(USAGE);
  });
});

describe('redact-cli --jsonl', () => {
  it('answers one object per line, in order, echoing ids; bad lines give errors and the run goes on', async () => {
    const input = [
      '{"id": 1, "input": "TOKEN=abc"}',
      '{"input": "Authorization: Bearer abcdefghijklmnopqrstuvwxyz"}',
      'not json sk-abcdefghijklmnopqrstuvwxyz',
      '',
      '   ',
      '[1, 2]',
      '"just a string"',
      '{"id": "x", "input": 42}',
      '{"id": null}',
      `{"id": {"nested": true}, "input": ${JSON.stringify(`key:\n${KEY_BLOCK}\nok`)}}`,
      '{"id": 9, "input": "ünïcødé PASSWORD=пароль"}',
    ].join('\n');
    const out = await runText(input, [3, 50, 51, 120], ['--jsonl']);
    expect(out.split('\n')).toEqual([
      '{"id":1,"output":"TOKEN=***"}',
      '{"output":"Authorization: Bearer abcdef...wxyz"}',
      '{"error":"Invalid JSON"}',
      '{"error":"Each line must be a JSON object"}',
      '{"error":"Each line must be a JSON object"}',
      '{"id":"x","error":"Field \\"input\\" must be a string"}',
      '{"id":null,"error":"Field \\"input\\" must be a string"}',
      '{"id":{"nested":true},"output":"key:\\n[REDACTED PRIVATE KEY]\\nok"}',
      '{"id":9,"output":"ünïcødé PASSWORD=***"}',
      '',
    ]);
  });

  it('never echoes a secret from an unparseable line', async () => {
    const out = await runText('{"input": "sk-abcdefghijklmnopqrstuvwxyz"\n', [], ['--jsonl']);
    expect(out).toBe('{"error":"Invalid JSON"}\n');
  });

  it('writes each answer as soon as its line is complete', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const done = runRedactCli(input, output, ['--jsonl']);
    const nextLine = () =>
      new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no output before the deadline')), FLUSH_DEADLINE_MS);
        output.once('data', (chunk: Buffer) => {
          clearTimeout(timer);
          resolve(chunk.toString('utf8'));
        });
      });
    const first = nextLine();
    input.write('{"id": "a", "input": "SECRET=1"}\n{"id": "b", ');
    expect(await first).toBe('{"id":"a","output":"SECRET=***"}\n');
    const second = nextLine();
    input.write('"input": "SECRET=2"}\n');
    expect(await second).toBe('{"id":"b","output":"SECRET=***"}\n');
    input.end();
    expect(await done).toBe(EXIT_OK);
  });
});

describe('redact-cli --check', () => {
  const SECRET = 'ghp_aB3dE5gH7jK9mN1pQ3sT5vW7';

  async function check(text: string, args: string[] = []): Promise<{ code: number; out: string }> {
    const out = sink();
    const code = await runRedactCli(chunked(Buffer.from(text, 'utf8'), [3, 40]), out.stream, ['--check', ...args]);
    return { code, out: out.text() };
  }

  it('prints the line number and rule of each finding, never the secret, and exits 1', async () => {
    const text = `fine\nexport GITHUB_TOKEN=${SECRET}\nok\n${KEY_BLOCK}\ncall +14155552671 or postgres://u:hunter2@db\n`;
    const { code, out } = await check(text);
    expect(code).toBe(EXIT_FINDINGS);
    expect(out).toBe('line 2: assignment\nline 4: private key\nline 8: phone number\nline 8: database url\n');
    for (const secret of [SECRET, 'hunter2', '4155552671', 'MIIEow']) expect(out).not.toContain(secret);
  });

  it('prints nothing and exits 0 for clean input', async () => {
    expect(await check('nothing to see\nsk-learn and e3b0c44298fc1c149afbf4c8996fb92427ae41e4\nAPI_KEY=")"\n')).toEqual({ code: EXIT_OK, out: '' });
    expect(await check('')).toEqual({ code: EXIT_OK, out: '' });
  });

  it('does not report what is already masked', async () => {
    const once = redact(`TOKEN=${SECRET}\n${KEY_BLOCK}\n`);
    expect(await check(once)).toEqual({ code: EXIT_OK, out: '' });
  });

  it('checks the input field of each JSON line with --jsonl', async () => {
    const text = `{"input":"clean"}\n{oops\n{"id":3,"input":"x-api-key: ${SECRET}"}\n`;
    expect(await check(text, ['--jsonl'])).toEqual({ code: EXIT_FINDINGS, out: 'line 3: api key header\n' });
  });

  it('reads files, prefixing each finding with the file name; an unreadable file exits 2', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-redact-check-'));
    try {
      const clean = path.join(dir, 'clean.log');
      const leaky = path.join(dir, 'leaky.env');
      fs.writeFileSync(clean, 'all good\n');
      fs.writeFileSync(leaky, `# settings\nDB_PASSWORD=${SECRET}\n`);
      const out = sink();
      expect(await runRedactCli(Readable.from([]), out.stream, ['--check', clean, leaky])).toBe(EXIT_FINDINGS);
      expect(out.text()).toBe(`${leaky}: line 2: assignment\n`);
      const clean2 = sink();
      expect(await runRedactCli(Readable.from([]), clean2.stream, ['--check', clean])).toBe(EXIT_OK);
      expect(clean2.text()).toBe('');
      // Without --check, files are redacted to stdout.
      const redacted = sink();
      expect(await runRedactCli(Readable.from([]), redacted.stream, [leaky])).toBe(EXIT_OK);
      expect(redacted.text()).toBe('# settings\nDB_PASSWORD=ghp_aB...5vW7\n');
      const errors = sink();
      expect(await runRedactCli(Readable.from([]), sink().stream, ['--check', path.join(dir, 'missing')], errors.stream)).toBe(EXIT_USAGE);
      expect(errors.text()).toBe(`Cannot read ${path.join(dir, 'missing')}: ENOENT\n`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

// One real process: the two modules transpiled to ESM JavaScript (as tsc emits them), run by node over pipes.
describe('redact-cli as a process', () => {
  let dir = '';

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-redact-cli-'));
    fs.writeFileSync(path.join(dir, 'package.json'), '{"type": "module"}');
    fs.mkdirSync(path.join(dir, 'redact'));
    const modules = ['redact-cli', ...fs.readdirSync(path.join(HERE, 'redact')).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts')).map((f) => `redact/${f.slice(0, -3)}`)];
    for (const name of modules) {
      const source = fs.readFileSync(path.join(HERE, `${name}.ts`), 'utf8');
      const { outputText } = ts.transpileModule(source, {
        compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 },
        fileName: `${name}.ts`,
      });
      fs.writeFileSync(path.join(dir, `${name}.js`), outputText);
    }
  });

  afterAll(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  function run(args: string[], stdin: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [path.join(dir, 'redact-cli.js'), ...args], { stdio: 'pipe' });
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error('redact-cli did not finish before the deadline'));
      }, SPAWN_DEADLINE_MS);
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      child.on('error', reject);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
      child.stdin.end(stdin);
    });
  }

  it('redacts stdin text to stdout and exits 0', async () => {
    const result = await run([], `export GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789\n${KEY_BLOCK}\nbye\n`);
    expect(result).toEqual({ code: 0, stdout: 'export GITHUB_TOKEN=ghp_ab...6789\n[REDACTED PRIVATE KEY]\nbye\n', stderr: '' });
  });

  it('runs --jsonl and exits 0 despite a bad line', async () => {
    const result = await run(['--jsonl'], '{"id":1,"input":"AUTHOR=me"}\n{oops\n{"id":2,"input":"fine"}\n');
    expect(result).toEqual({
      code: 0,
      stdout: '{"id":1,"output":"AUTHOR=***"}\n{"error":"Invalid JSON"}\n{"id":2,"output":"fine"}\n',
      stderr: '',
    });
  });

  it('exits 1 with --check on stdin holding a secret, and 0 on a clean one', async () => {
    const found = await run(['--check'], 'ok\nAuthorization: Bearer abcdefghijklmnopqrstuvwxyz\n');
    expect(found).toEqual({ code: 1, stdout: 'line 2: authorization header\n', stderr: '' });
    expect(await run(['--check'], 'ok\n')).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('exits 2 on an unknown argument', async () => {
    const result = await run(['--nope'], '');
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('Unknown argument: --nope');
  });
});
