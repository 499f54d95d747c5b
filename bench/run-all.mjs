// `npm run bench`: every benchmark in turn, with the arguments docs/benchmarks.md quotes for it, each in its own
// process (they pin children to cores and must not overlap). Run after `npm run build`.
import { spawnSync } from 'node:child_process';

const BENCHES = [
  ['http.mjs', '--runs', '3', '--seconds', '5'],
  ['upload.mjs', '--pairs', '5', '--sizes', '200'],
  ['concurrency.mjs', '--pairs', '7', '--seconds', '5'],
  ['redact.mjs', '--runs', '31'],
  ['extract.mjs', '5'],
  ['stt.mjs', '--runs', '3', '--cold', '5'],
  ['stt-providers.mjs', '--runs', '7'],
  ['office.mjs', '--runs', '15'],
  ['ui.mjs', '--runs', '5', '--mib', '100'],
  ['markdown.mjs', '--runs', '7'],
  ['chat.mjs', '--runs', '3'],
  ['mcp.mjs', '--runs', '7'],
  ['electron-shell.mjs', '--runs', '15'],
  ['startup.mjs', '--runs', '15', '--old-runs', '3'],
];

let failed = 0;
for (const [file, ...args] of BENCHES) {
  console.log(`\n## node bench/${file} ${args.join(' ')}\n`);
  const r = spawnSync(process.execPath, [new URL(file, import.meta.url).pathname, ...args], { stdio: 'inherit' });
  if (r.status !== 0) {
    failed++;
    console.log(`(bench/${file} exited ${r.status ?? r.signal})`);
  }
}
process.exitCode = failed ? 1 : 0;
