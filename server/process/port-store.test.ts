import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PORT_FILE_NAME, readLastPort, startOnRememberedPort, writeLastPort } from './port-store.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'satchel-port-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A real listener, so "port in use" is the kernel's answer, not a fake's. */
function listen(port: number): Promise<net.Server & { port: number }> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const address = server.address() as net.AddressInfo;
      resolve(Object.assign(server, { port: address.port }));
    });
  });
}
const closeServer = (server: net.Server) => new Promise<void>((resolve) => server.close(() => resolve()));

describe('readLastPort / writeLastPort', () => {
  it('round-trips a port as JSON', async () => {
    await writeLastPort(dir, 51234);
    expect(await readFile(path.join(dir, PORT_FILE_NAME), 'utf8')).toBe('{"port":51234}\n');
    expect(await readLastPort(dir)).toBe(51234);
  });
  it('creates the folder and leaves no temp file', async () => {
    const nested = path.join(dir, 'a', 'b');
    await writeLastPort(nested, 40000);
    expect(await readdir(nested)).toEqual([PORT_FILE_NAME]);
  });
  it('treats missing, corrupt, out-of-range and oversized files as no port', async () => {
    expect(await readLastPort(dir)).toBeUndefined();
    const file = path.join(dir, PORT_FILE_NAME);
    for (const text of ['{', 'null', '{"port":0}', '{"port":70000}', '{"port":"8080"}', '{"port":1.5}', `{"port":8080,"x":"${'x'.repeat(300)}"}`]) {
      await writeFile(file, text);
      expect(await readLastPort(dir), text).toBeUndefined();
    }
  });
  it('refuses to write a non-port', async () => {
    await expect(writeLastPort(dir, 0)).rejects.toThrow('Not a TCP port: 0');
    await expect(readdir(dir)).resolves.toEqual([]);
  });
});

describe('startOnRememberedPort', () => {
  it('uses any free port the first time and remembers it', async () => {
    const tried: number[] = [];
    const server = await startOnRememberedPort(dir, (port) => {
      tried.push(port);
      return listen(port);
    });
    try {
      expect(tried).toEqual([0]);
      expect(await readLastPort(dir)).toBe(server.port);
    } finally {
      await closeServer(server);
    }
  });

  it('reuses the remembered port on the next launch', async () => {
    const first = await startOnRememberedPort(dir, listen);
    const port = first.port;
    await closeServer(first);
    const tried: number[] = [];
    const second = await startOnRememberedPort(dir, (p) => {
      tried.push(p);
      return listen(p);
    });
    try {
      expect(tried).toEqual([port]);
      expect(second.port).toBe(port);
    } finally {
      await closeServer(second);
    }
  });

  it('falls back to a free port when the remembered one is taken, and remembers the new one', async () => {
    const squatter = await listen(0);
    await writeLastPort(dir, squatter.port);
    const fallbacks: Array<[number, string]> = [];
    const server = await startOnRememberedPort(dir, listen, {
      onFallback: (port, err) => fallbacks.push([port, (err as NodeJS.ErrnoException).code ?? '']),
    });
    try {
      expect(fallbacks).toEqual([[squatter.port, 'EADDRINUSE']]);
      expect(server.port).not.toBe(squatter.port);
      expect(await readLastPort(dir)).toBe(server.port);
    } finally {
      await closeServer(server);
      await closeServer(squatter);
    }
  });

  it('does not mask a real start failure behind a retry', async () => {
    await writeLastPort(dir, 45678);
    const tried: number[] = [];
    await expect(
      startOnRememberedPort(dir, async (port) => {
        tried.push(port);
        throw new Error('state directory unreadable');
      }),
    ).rejects.toThrow('state directory unreadable');
    expect(tried).toEqual([45678]);
  });

  it('keeps the running server when the port cannot be remembered', async () => {
    const fileInTheWay = path.join(dir, 'not-a-dir');
    await writeFile(fileInTheWay, 'x');
    const errors: unknown[] = [];
    const server = await startOnRememberedPort(fileInTheWay, listen, { onSaveError: (err) => errors.push(err) });
    try {
      expect(server.listening).toBe(true);
      expect(errors).toHaveLength(1);
    } finally {
      await closeServer(server);
    }
  });
});
