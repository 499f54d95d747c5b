// The Inbox attacked from its own folder (issue 33, findings 6 and 12): a process that can write a watched
// folder's parent swaps the folder for a symlink to ~/.ssh, or links a key into it; files Satchel may not read,
// names that are not UTF-8 and a folder past the per-scan limit. The key's bytes must never arrive, and what is
// not taken is counted and named as Settings shows it (GET /api/inbox/folders).
import fs from 'node:fs/promises';
import { openSync, closeSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { setLogSink } from '../core/log.js';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { startHoldingSwapper, swapSkipReason, type Swapper } from '../testing/swapper.js';
import { WATCH_REPLACED } from './folders.js';
import { HARD_LINK_REFUSED } from './rules.js';
import { INBOX_TITLE } from './session.js';
import { SKIP_NOT_UTF8, SKIP_UNREADABLE, type InboxCounts } from './watcher.js';

const FAST = { settleMs: 200, pollMs: 50, rescanMs: 300 };
const KEY = '-----BEGIN OPENSSH PRIVATE KEY----- b3BlbnNzaC1rZXktdjEAAAAA the real key';

let server: TestServer | undefined;
let swapper: Swapper | undefined;
afterEach(async () => {
  swapper?.kill();
  swapper = undefined;
  await server?.stop();
  server = undefined;
});

interface InboxBody {
  folders: { path: string; status: string; error?: string; skipped?: { name: string; reason: string }[] }[];
  counts: InboxCounts;
}

const inbox = async (s: TestServer) => (await (await s.api('/api/inbox/folders')).json()) as InboxBody;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, probe: () => Promise<T | undefined>, deadlineMs = 20_000): Promise<T> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** Every file stored in the Inbox conversation, with its bytes. */
async function arrived(s: TestServer): Promise<{ filename: string; text: string }[]> {
  const list = (await (await s.api('/api/sessions')).json()) as { sessions: { session_id: string; title: string }[] };
  const found = list.sessions.find((x) => x.title === INBOX_TITLE);
  if (!found) return [];
  const body = (await (await s.api(`/api/session?session_id=${found.session_id}`)).json()) as { session: { attachments: { filename: string; path: string }[] } };
  return Promise.all(body.session.attachments.map(async (a) => ({ filename: a.filename, text: await fs.readFile(a.path, 'utf8') })));
}

/** A server watching `<tmp>/Downloads`, with a fake home whose `.ssh/id_rsa` holds KEY. */
async function setUp(inboxOptions: Record<string, number> = FAST): Promise<{ s: TestServer; dir: string; ssh: string }> {
  const s = await startTestServer({ inbox: inboxOptions });
  server = s;
  const ssh = path.join(s.tmp, 'home', '.ssh');
  await fs.mkdir(ssh, { recursive: true, mode: 0o700 });
  await fs.writeFile(path.join(ssh, 'id_rsa'), KEY, { mode: 0o600 });
  const dir = path.join(s.tmp, 'Downloads');
  await fs.mkdir(dir);
  expect((await s.json('/api/inbox/folders', { add: dir })).status).toBe(200);
  await until('watching', async () => ((await inbox(s)).folders[0]?.status === 'watching' ? true : undefined));
  return { s, dir, ssh };
}

describe('the Inbox reads only the folder it holds', () => {
  it('the folder renamed away and a symlink to ~/.ssh put in its place: id_rsa made in the renamed folder never brings the key; the folder says it was replaced', async () => {
    // The rescan is slow here (a network share, or a busy machine): only the held folder protects.
    const { s, dir, ssh } = await setUp({ ...FAST, rescanMs: 60_000 });
    const moved = `${dir}-moved`;
    await fs.rename(dir, moved);
    await fs.symlink(ssh, dir);
    await fs.writeFile(path.join(moved, 'id_rsa'), 'a decoy the attacker wrote');
    await sleep(FAST.settleMs * 8);
    expect((await arrived(s)).filter((a) => a.text.includes('PRIVATE KEY'))).toEqual([]);
    const folder = (await inbox(s)).folders[0]!;
    expect([folder.status, folder.error]).toEqual(['refused', WATCH_REPLACED]);
    expect(await fs.readFile(path.join(ssh, 'id_rsa'), 'utf8')).toBe(KEY);
  });

  const reason = swapSkipReason();
  it.skipIf(reason !== undefined)('a swapper process exchanging the folder with a symlink to ~/.ssh while files arrive: the key never arrives', async () => {
    // The real rescan time: the old watcher noticed a swap only then, and read through the path meanwhile.
    const { s, dir, ssh } = await setUp({ ...FAST, rescanMs: 2_000 });
    const link = `${dir}-link`;
    await fs.symlink(ssh, link);
    // The test writes into the real folder through a descriptor, wherever the swapper has put it.
    const held = openSync(dir, 'r');
    try {
      swapper = await startHoldingSwapper(FAST.settleMs + 150, dir, link);
      for (let i = 0; i < 12; i++) {
        writeFileSync(`/proc/self/fd/${held}/id_rsa`, `decoy ${i}`);
        await sleep(500);
      }
      const swaps = await swapper.stop();
      swapper = undefined;
      expect(swaps).toBeGreaterThan(4);
    } finally {
      closeSync(held);
    }
    await sleep(FAST.settleMs * 4);
    const files = await arrived(s);
    console.log(`symlinked-parent race: ${files.length} decoys arrived, ${files.filter((a) => a.text.includes('PRIVATE KEY')).length} keys`);
    expect(files.filter((a) => a.text.includes('PRIVATE KEY'))).toEqual([]);
    for (const f of files) expect(f.text).toMatch(/^decoy \d+$/);
    expect(await fs.readFile(path.join(ssh, 'id_rsa'), 'utf8')).toBe(KEY);
  }, 60_000);

  it('a hard link to the key placed in the folder is refused, counted and named; a plain file beside it arrives', async () => {
    const { s, dir, ssh } = await setUp();
    await fs.link(path.join(ssh, 'id_rsa'), path.join(dir, 'notes.txt'));
    await fs.writeFile(path.join(dir, 'plain.txt'), 'plain');
    await until('the plain file and the refusal', async () => {
      const { counts } = await inbox(s);
      return counts.arrived === 1 && counts.hard_link === 1 ? true : undefined;
    });
    expect(await arrived(s)).toEqual([{ filename: 'plain.txt', text: 'plain' }]);
    expect((await inbox(s)).folders[0]!.skipped).toEqual([{ name: 'notes.txt', reason: HARD_LINK_REFUSED }]);
  });
});

describe('what the Inbox does not take is counted once and named', () => {
  it('a name that is not UTF-8 is counted once and named, however many rescans pass', async () => {
    const { s, dir } = await setUp();
    const bad = Buffer.concat([Buffer.from(dir + '/report-'), Buffer.from([0xff, 0xfe]), Buffer.from('.txt')]);
    await fs.writeFile(bad, 'latin-1 named');
    await until('the bad name', async () => ((await inbox(s)).counts.bad_name === 1 ? true : undefined));
    await sleep(FAST.rescanMs * 4);
    const body = await inbox(s);
    expect(body.counts.bad_name).toBe(1);
    expect(body.counts.arrived).toBe(0);
    expect(body.folders[0]!.skipped).toEqual([{ name: 'report-\uFFFD\uFFFD.txt', reason: SKIP_NOT_UTF8 }]);
  });

  it.skipIf(process.getuid?.() === 0)('a file Satchel may not read is counted and named', async () => {
    const { s, dir } = await setUp();
    await fs.writeFile(path.join(dir, 'locked.pdf'), 'not yours', { mode: 0o000 });
    await until('the unreadable file', async () => ((await inbox(s)).counts.unreadable === 1 ? true : undefined));
    expect((await inbox(s)).folders[0]!.skipped).toEqual([{ name: 'locked.pdf', reason: SKIP_UNREADABLE }]);
  });

  it('a folder past the per-scan limit is counted by what it holds past it, and warned about once per change', async () => {
    const lines: string[] = [];
    const restore = setLogSink((line) => lines.push(line));
    try {
      const { s, dir } = await setUp({ ...FAST, maxFilesPerScan: 5 });
      for (let i = 0; i < 8; i++) await fs.writeFile(path.join(dir, `f${i}.txt`), `file ${i}`);
      await until('the count', async () => ((await inbox(s)).counts.over_scan_limit === 3 ? true : undefined));
      await sleep(FAST.rescanMs * 5);
      expect((await inbox(s)).counts.over_scan_limit).toBe(3);
      expect(lines.filter((l) => l.includes('only the first 5 are looked at'))).toHaveLength(1);
      await fs.writeFile(path.join(dir, 'f8.txt'), 'one more');
      await until('the new count', async () => ((await inbox(s)).counts.over_scan_limit === 4 ? true : undefined));
      await sleep(FAST.rescanMs * 3);
      expect(lines.filter((l) => l.includes('only the first 5 are looked at'))).toHaveLength(2);
    } finally {
      restore();
    }
  });
});
