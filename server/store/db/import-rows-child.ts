// A child process for the batched import's kill test (import-rows.kill.test.ts): opens the store of the state folder
// given and imports the conversations of the JSON file given (store.insertAll), saying `batch <n>` after each of its
// transactions of rows, `shown <n>` after each that shows conversations, and `done` at the end.
import fs from 'node:fs/promises';
import { SessionStore, type Session } from '../sessions.js';

const [stateDir, file] = process.argv.slice(2);
if (!stateDir || !file) throw new Error('usage: import-rows-child <state folder> <sessions.json>');
const sessions = JSON.parse(await fs.readFile(file, 'utf8')) as Session[];
const store = new SessionStore(stateDir);
await store.load();
let batches = 0;
let shown = 0;
await store.insertAll(sessions, (phase) => process.stdout.write(phase === 'rows' ? `batch ${++batches}\n` : `shown ${++shown}\n`));
process.stdout.write('done\n');
await store.close();
