// Hermes' continuity check at a turn's start (issue 34): agent/hermes-continuity.ts `beginHermesTurn` now walks the
// whole shown conversation (every exchange must be one the gateway received), where it looked at the last row only.
// It runs inside the write that records the pending turn, once per turn. Floor in the same run: the check of the
// last row only (the arrival filter it also ran, then one comparison).
// Usage: npm run build && node bench/hermes-continuity.mjs [--rows 10000] [--runs 101]
import { arg, median } from './lib.mjs';

const ROWS = Number(arg('--rows', 10000));
const RUNS = Number(arg('--runs', 101));
const { beginHermesTurn } = await import(new URL('../dist/server/agent/hermes-continuity.js', import.meta.url).href);
const { isArrivalRow } = await import(new URL('../dist/server/agent/arrivals-input.js', import.meta.url).href);

const id = 'satchel-abcdef012345-00000abc';
const n = ROWS / 2;
const rows = Array.from({ length: n }, (_, k) => [
  { role: 'user', content: `question ${k}` },
  { role: 'assistant', content: `answer ${k}`, _hermes_turn: `${id}#${k + 1}` },
]).flat();
const config = { baseUrl: 'http://127.0.0.1:8642', apiKey: 'k'.repeat(20), model: 'm', kind: 'hermes', idleTimeoutMs: 1, contextChars: 1 };

function time(fn) {
  const times = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    fn();
    times.push(performance.now() - t0);
  }
  return median(times);
}

const whole = time(() => {
  const s = { session_id: 'abcdef012345', messages: rows, _hermes: { id, n, base_url: config.baseUrl } };
  if (!beginHermesTurn(s, config)) throw new Error('expected in step');
});
const lastOnly = time(() => {
  const shown = rows.filter((m) => !isArrivalRow(m));
  if (shown.at(-1)._hermes_turn !== `${id}#${n}`) throw new Error('expected in step');
});
console.log(`${ROWS} rows, median of ${RUNS}: whole conversation ${whole.toFixed(3)} ms, last row only (floor) ${lastOnly.toFixed(3)} ms, ratio ${(whole / lastOnly).toFixed(2)}`);
