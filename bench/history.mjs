// The generated history the store and search benchmarks run on (bench/store.mjs, bench/search.mjs): conversations
// of realistic lengths, words drawn by Zipf's law, the same on every run and machine.
import fs from 'node:fs';
import path from 'node:path';

// A deterministic history: the same on every run and machine.
let seed = 0x5eed;
const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
/** 150 common words, then 20,000 rarer made-up ones: word ranks follow Zipf's law (weight 1/rank), as in prose. */
const WORDS = [
  ...'the of and to in is that for it as with was on be by this are from at or an have not which but all were when we there can more if will one about up out so what their into do time has some could them other than then now only its over also after use two how our work first well way even new want because any these give most us year file report plan budget meeting travel recipe python error server deploy invoice lisbon garden music photo contract draft summary'.split(' '),
  ...Array.from({ length: 20_000 }, (_, i) => `w${(i * 7919).toString(36)}`),
];
const ZIPF = (() => {
  const cumulative = [];
  let sum = 0;
  for (let r = 1; r <= WORDS.length; r++) cumulative.push((sum += 1 / r));
  return cumulative.map((c) => c / sum);
})();
function word() {
  const x = rand();
  let lo = 0;
  let hi = ZIPF.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ZIPF[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return WORDS[lo];
}
export function text(chars) {
  let s = '';
  while (s.length < chars) s += word() + (rand() < 0.08 ? '. ' : ' ');
  return s.slice(0, chars);
}
/** A search of two words from the middle of the vocabulary (ranks 100-5,000: a name, a topic, not "the"). */
export const query = () => `${WORDS[100 + Math.floor(rand() * 4_900)]} ${WORDS[100 + Math.floor(rand() * 4_900)]}`;
/** Realistic lengths: a question of 40-600 characters, an answer of 200-3,000. */
const row = (i, t) =>
  i % 2 === 0
    ? { role: 'user', content: text(40 + Math.floor(rand() * 560)), timestamp: t, attachments: [] }
    : { role: 'assistant', content: text(200 + Math.floor(rand() * 2800)), timestamp: t };

/**
 * Write the history as the JSON session files an older Satchel kept (`dir`/sessions/<id>.json; the server imports
 * them on its first start): `conversations` conversations, `messages` messages in all, the first of `long`.
 * Resolves the ids, the long one first.
 */
export function generate(dir, { conversations, messages, long }) {
  const sessions = path.join(dir, 'sessions');
  fs.mkdirSync(sessions, { recursive: true });
  const rest = Math.max(0, messages - long);
  const ids = [];
  let t = 1_700_000_000;
  for (let c = 0; c < conversations; c++) {
    const id = c.toString(16).padStart(12, '0');
    ids.push(id);
    const count = c === 0 ? long : Math.round(rest / (conversations - 1));
    const at = new Date((t += 60) * 1000).toISOString();
    const messages = Array.from({ length: count }, (_, i) => row(i, t + i));
    fs.writeFileSync(
      path.join(sessions, `${id}.json`),
      JSON.stringify({ session_id: id, title: text(30), workspace: dir, profile: 'default', created_at: at, updated_at: at, messages, attachments: [] }, null, 2),
    );
  }
  return ids;
}
