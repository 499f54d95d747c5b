// Runs one extraction the way the upload handler will (allocate the directory, extract) and checks the
// failure contract: the destination is gone and nothing was written anywhere else.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { expect } from 'vitest';
import { ValueError } from '../../core/errors.js';
import { allocateExtractionDir, extractArchive, type ExtractResult } from '../index.js';
import { listTree, writeArchive, type Sandbox } from './fixtures.js';

export const MIB = 1024 * 1024;
export const DEFAULT_CAP = 64 * MIB;

export async function extractOk(
  sb: Sandbox,
  name: string,
  bytes: Buffer,
  maxBytes = DEFAULT_CAP,
): Promise<{ dest: string; result: ExtractResult }> {
  const archive = writeArchive(sb, name, bytes);
  const dest = await allocateExtractionDir(sb.base, name);
  const result = await extractArchive(archive, name, dest, sb.base, { maxBytes });
  await expectNothingOutside(sb);
  return { dest, result };
}

/** Expect a failure; `expected` is the exact ValueError text, a pattern for it, or 'other' (not a ValueError). */
export async function extractFails(
  sb: Sandbox,
  name: string,
  bytes: Buffer,
  expected: string | RegExp | 'other',
  maxBytes = DEFAULT_CAP,
): Promise<Error> {
  const archive = writeArchive(sb, name, bytes);
  const dest = await allocateExtractionDir(sb.base, name);
  let caught: unknown;
  try {
    await extractArchive(archive, name, dest, sb.base, { maxBytes });
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(Error);
  const error = caught as Error;
  if (expected === 'other') {
    expect(error).not.toBeInstanceOf(ValueError);
  } else {
    expect(error).toBeInstanceOf(ValueError);
    if (typeof expected === 'string') expect(error.message).toBe(expected);
    else expect(error.message).toMatch(expected);
  }
  expect(fs.existsSync(dest)).toBe(false);
  expect(await listTree(sb.base)).toEqual([]);
  await expectNothingOutside(sb);
  return error;
}

/** The sandbox root holds only its three folders, and `outside` stays empty. */
export async function expectNothingOutside(sb: Sandbox): Promise<void> {
  expect((await fsp.readdir(sb.root)).sort()).toEqual(['base', 'inbox', 'outside']);
  expect(await listTree(sb.outside)).toEqual([]);
}
