// A fresh temporary directory per test, removed afterwards, so tests never see each other's files.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach } from 'vitest';

export function useTmpDir(): { readonly path: string; write(name: string, data: Buffer | string): Promise<string> } {
  let dir = '';
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-office-'));
  });
  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });
  return {
    get path() {
      return dir;
    },
    async write(name: string, data: Buffer | string) {
      const file = path.join(dir, name);
      await fs.writeFile(file, data);
      return file;
    },
  };
}
