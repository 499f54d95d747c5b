// Search finds what the agent is sent (issue 35): the text of a small file inside an uploaded archive (the agent
// gets its list and its small members), and a word past character 100,000 of a 148 K log (the index held only
// the first 100,000), with a snippet around that word. Old entries are indexed again by the background pass.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { searchResults, shownSnippet, uploadOk, type Json } from '../testing/search-client.js';
import { type TestServer } from '../testing/harness.js';
import { testServerForFile } from '../testing/per-file-server.js';

const srv = testServerForFile();

const search = (q: string): Promise<Json[]> => searchResults(srv, q);
const shown = shownSnippet;

const upload = (id: string, filename: string, content: string | Buffer): Promise<Json> => uploadOk(srv, id, filename, content);

/** A server log of at least `chars` characters, each line numbered; no word in it is "quokka". */
function serverLog(chars: number): string {
  const lines: string[] = [];
  let n = 0;
  for (let i = 0; n < chars; i++) {
    const line = `2026-11-28T10:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}Z INFO worker-${i % 7} handled request ${i} in ${(i * 37) % 900} ms`;
    lines.push(line);
    n += line.length + 1;
  }
  return lines.join('\n') + '\n';
}

describe('search finds what the agent is sent', () => {
  it('a word only in a small text file inside an uploaded zip (made by zip)', async () => {
    const id = await srv.newSession();
    const dir = await fs.mkdtemp(path.join(srv.tmp, 'zip-'));
    await fs.writeFile(path.join(dir, 'notes.txt'), 'The survey boat saw a shearwater off the point.\n');
    await fs.writeFile(path.join(dir, 'data.bin'), Buffer.from([0, 1, 2, 0xff]));
    execFileSync('zip', ['-q', 'trip.zip', 'notes.txt', 'data.bin'], { cwd: dir });
    await upload(id, 'trip.zip', await fs.readFile(path.join(dir, 'trip.zip')));
    const hits = (await search('shearwater')).filter((r) => r.session_id === id);
    expect(hits).toHaveLength(1);
    expect(hits[0]).toMatchObject({ kind: 'attachment_text', attachment: 'trip.zip' });
    expect(shown(hits[0]!)).toContain('The survey boat saw a [shearwater] off the point.');
    // A member's name is in the list the agent gets, so it is found too.
    expect((await search('data.bin')).filter((r) => r.session_id === id).map((r) => r.kind)).toEqual(['attachment_text']);
  });

  it('a word past character 100,000 of a 148 K log, shown in its snippet', async () => {
    const id = await srv.newSession();
    const head = serverLog(140_000);
    const log = `${head}2026-11-28T11:00:00Z ERROR worker-3 quokka checksum mismatch on shard 12\n${serverLog(8_000)}`;
    expect(log.length).toBeGreaterThan(148_000);
    expect(log.indexOf('quokka')).toBeGreaterThan(100_000);
    await upload(id, 'server.log', log);
    const hits = (await search('quokka')).filter((r) => r.session_id === id);
    expect(hits).toHaveLength(1);
    expect(hits[0]).toMatchObject({ kind: 'attachment_text', attachment: 'server.log' });
    const snippet = shown(hits[0]!);
    expect(snippet.startsWith('…')).toBe(true);
    expect(snippet).toContain('ERROR worker-3 [quokka] checksum mismatch');
  });

  it('a word 2.5 million characters into a 3 MB log: found, and its snippet shows it', async () => {
    const id = await srv.newSession();
    const log = `${serverLog(2_500_000)}2026-11-28T12:00:00Z WARN worker-5 wombat queue is backing up\n${serverLog(500_000)}`;
    await upload(id, 'big.log', log);
    const hits = (await search('wombat')).filter((r) => r.session_id === id);
    expect(hits).toHaveLength(1);
    expect(shown(hits[0]!)).toContain('WARN worker-5 [wombat] queue is backing up');
  });
});
