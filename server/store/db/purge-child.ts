// A child process for the purge's kill test (purge.kill.test.ts): opens the store of the state folder given and
// purges the deleted conversation named, saying `batch <n>` after each batch and `done` at the end.
import { SessionStore } from '../sessions.js';

const [stateDir, id] = process.argv.slice(2);
if (!stateDir || !id) throw new Error('usage: purge-child <state folder> <session id>');
const store = new SessionStore(stateDir);
await store.load();
let batches = 0;
await store.remove(id, () => process.stdout.write(`batch ${++batches}\n`));
process.stdout.write('done\n');
await store.close();
