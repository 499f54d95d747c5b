// Attack: an Office attachment sent to the agent (agent/input.ts) is converted to Markdown and its sidecar
// `<name>.md` written beside it on first use. A local process that exchanges the attachment's folder (an
// extracted archive's folder in the session's attachments) with a symlink to outside, in a tight loop
// (renameat2 RENAME_EXCHANGE), must never get an outside document converted and sent to the agent, nor a sidecar
// written outside: the conversion reads the file the anchored walk opened and the sidecar is written through
// the folder that walk holds.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Budget, buildUserContent } from '../agent/input.js';
import type { ContentPart } from '../agent/types.js';
import { buildDocx, wPara, wRun } from '../office/testing/fixtures.js';
import { pool, restorePair, startSwapper, swapSkipReason, type Swapper } from '../testing/swapper.js';

/** Turns, each with a document of its own: none has a sidecar yet, so each converts and writes one. */
const TURNS = 150;
const CONCURRENCY = 4;
const TEST_TIMEOUT_MS = 120_000;
const TURN_CHARS = 100_000;
const INSIDE_TEXT = 'inside attachment words';
const OUTSIDE_TEXT = 'OUTSIDE confidential words';
const DOCX_MIME = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

const skip = swapSkipReason() !== undefined;

let tmp: string;
let root: string;
let bundle: string;
let outside: string;
let swapper: Swapper | undefined;

const docName = (i: number) => `doc-${i}.docx`;

beforeAll(async () => {
  if (skip) return;
  tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-agent-swap-')));
  // The session's attachment folder (the turn's only root), an extracted archive's folder in it, and a link
  // beside that folder to a folder outside holding documents of the same names.
  root = path.join(tmp, 'attachments', 'session');
  bundle = path.join(root, 'bundle');
  outside = path.join(tmp, 'outside');
  await fs.mkdir(bundle, { recursive: true });
  await fs.mkdir(outside);
  const inside = await buildDocx(wPara(wRun(INSIDE_TEXT)));
  const secret = await buildDocx(wPara(wRun(OUTSIDE_TEXT)));
  for (let i = 0; i < TURNS; i++) {
    await fs.writeFile(path.join(bundle, docName(i)), inside);
    await fs.writeFile(path.join(outside, docName(i)), secret);
  }
  await fs.symlink(outside, `${bundle}-link`);
});

afterAll(async () => {
  swapper?.kill();
  if (tmp) await fs.rm(tmp, { recursive: true, force: true });
});

const textOf = (content: string | ContentPart[]): string =>
  typeof content === 'string' ? content : content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');

it.skipIf(skip)(
  'an Office attachment is never converted from outside, nor its sidecar written outside, while its folder is swapped',
  async () => {
    swapper = await startSwapper(bundle, `${bundle}-link`);
    const texts: string[] = [];
    try {
      await pool(TURNS, CONCURRENCY, async (i) => {
        const file = path.join(bundle, docName(i));
        const content = await buildUserContent('', [{ kind: 'file', filename: docName(i), path: file, mime: DOCX_MIME, size: 0, is_image: false }], new Budget(TURN_CHARS), { roots: [root] });
        texts.push(textOf(content));
      });
    } finally {
      await swapper.stop();
      await restorePair(bundle, `${bundle}-link`);
    }
    // Read through the outside folder's own path, which the swaps never move.
    const outsideSidecars = (await fs.readdir(outside)).filter((name) => name.endsWith('.md'));
    const insideNames = await fs.readdir(bundle);
    expect(insideNames.filter((name) => name.endsWith('.md')).length, 'sidecars written inside').toBeGreaterThan(0);
    expect(insideNames.filter((name) => name.endsWith('.tmp'))).toEqual([]);
    const converted = texts.filter((t) => t.includes(INSIDE_TEXT)).length;
    const leaked = texts.filter((t) => t.includes(OUTSIDE_TEXT)).length;
    console.log(`${TURNS} turns under swaps: ${converted} converted from inside, ${leaked} from outside, ${outsideSidecars.length} sidecars written outside`);
    // Some turns got through while the folder was in place (else the race proves nothing)...
    expect(converted).toBeGreaterThan(0);
    // ...and none read the outside document or wrote beside it.
    expect(leaked).toBe(0);
    expect(outsideSidecars).toEqual([]);
  },
  TEST_TIMEOUT_MS,
);
