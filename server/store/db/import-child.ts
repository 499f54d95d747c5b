// A child process for the migration's kill test (import-json.kill.test.ts): opens the store of the state folder
// given, which imports its JSON session files, saying `ready` just before and `done <ms>` after.
import { SessionStore } from '../sessions.js';

const stateDir = process.argv[2];
if (!stateDir) throw new Error('usage: import-child <state folder>');
const store = new SessionStore(stateDir);
process.stdout.write('ready\n');
const t0 = performance.now();
await store.load();
process.stdout.write(`done ${Math.round(performance.now() - t0)}\n`);
await store.close();
