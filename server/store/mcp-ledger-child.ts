// A child process for the ledger's kill test (mcp-ledger.kill.test.ts): opens the store of the state folder given
// and records reads without end, several in flight at once (so kills land inside batches), saying `ack <n>` for
// each once appendLedger resolved: the moment a read would be answered. Even reads are one row, odd ones two (a
// search showing two conversations), so a half-written call would show.
import { SessionStore } from './sessions.js';

const [stateDir] = process.argv.slice(2);
if (!stateDir) throw new Error('usage: mcp-ledger-child <state folder>');
const IN_FLIGHT = 8;
const store = new SessionStore(stateDir);
await store.load();
let next = 0;
const one = async (): Promise<void> => {
  for (;;) {
    const n = next++;
    const row = (part: string) => ({ key_id: 'k', op: 'read_session', outcome: 'ok' as const, session_id: `s${n % 5}`, kind: 'conversation', name: `${n}${part}`, range: '', query: '', bytes: n, sha256: null });
    await store.appendLedger(n % 2 === 0 ? [row('')] : [row('a'), row('b')]);
    process.stdout.write(`ack ${n}\n`);
  }
};
process.stdout.write('ready\n');
await Promise.all(Array.from({ length: IN_FLIGHT }, one));
