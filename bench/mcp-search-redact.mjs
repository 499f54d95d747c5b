// MCP search's walk of files the index does not hold (issue 33): what redacting every file read cost, against
// redacting only the files that can hold the query (mcp/search-redact.ts), on the same 16 files of 1 MiB of log
// text. Run: npx vite-node bench/mcp-search-redact.mjs -- [--runs N]
import { redact } from '../server/redact/index.ts';
import { SearchRedaction } from '../server/mcp/search-redact.ts';

const runs = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 5;
const line = '2026-11-28T10:00:00Z INFO request served path=/api/items/42 status=200 user=alice took=12ms\n';
const file = line.repeat(Math.ceil((1024 * 1024) / line.length)).slice(0, 1024 * 1024);
const files = Array.from({ length: 16 }, (_, i) => file.replace('alice', `user${i}`));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const time = (f) => {
  const t = process.hrtime.bigint();
  f();
  return Number(process.hrtime.bigint() - t) / 1e6;
};
for (const [query, label] of [['invoice', 'query in no file'], ['user7', 'query in one file']]) {
  const before = [];
  const after = [];
  for (let r = 0; r < runs; r++) {
    before.push(time(() => files.forEach((f) => redact(f).toLowerCase().includes(query))));
    after.push(time(() => {
      const s = new SearchRedaction(query, 64 * 1024 * 1024);
      files.forEach((f) => s.text(f)?.toLowerCase().includes(query));
    }));
  }
  console.log(`${label}: every file redacted ${median(before).toFixed(0)} ms, only where the query can be ${median(after).toFixed(0)} ms (median of ${runs})`);
}
