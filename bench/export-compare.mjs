// Two "Export all" archives of the same history compared member by member (issue 37, finding 2: the archive is
// exactly as before a change): the same member names in the same order, and the same uncompressed bytes, but for
// the export's time (`"exported_at"` in each JSON) and the archive's name. Exits 1 on any difference.
//
//   node bench/export-stream.mjs --messages 20000 --state-dir <copy> --satchel-only --keep-archive /tmp/a.zip
//   node bench/export-stream.mjs --messages 20000 --state-dir <copy> --satchel-only --keep-archive /tmp/b.zip --dist dist-before
//   node bench/export-compare.mjs /tmp/a.zip /tmp/b.zip
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const yauzl = require('yauzl');

/** Every member's name and bytes, in the archive's order. */
async function members(file) {
  const zip = await yauzl.openPromise(file, { lazyEntries: true });
  const out = [];
  await new Promise((resolve, reject) => {
    zip.on('entry', (entry) => {
      zip.openReadStream(entry, (err, stream) => {
        if (err) return reject(err);
        const chunks = [];
        stream.on('data', (c) => chunks.push(c)).on('error', reject).on('end', () => {
          out.push({ name: entry.fileName, bytes: Buffer.concat(chunks) });
          zip.readEntry();
        });
      });
    });
    zip.on('end', resolve).on('error', reject);
    zip.readEntry();
  });
  zip.close();
  return out;
}

/** The export's time is the one thing two exports of the same history differ in. */
const timeless = (name, bytes) => (name.endsWith('.json') ? Buffer.from(bytes.toString('utf8').replace(/"exported_at": "[^"]*"/, '"exported_at": ""')) : bytes);

const [a, b] = await Promise.all(process.argv.slice(2, 4).map(members));
let differ = 0;
if (a.length !== b.length) {
  console.log(`member count: ${a.length} vs ${b.length}`);
  differ++;
}
let bytes = 0;
for (let i = 0; i < Math.min(a.length, b.length); i++) {
  if (a[i].name !== b[i].name) {
    if (differ++ < 10) console.log(`member ${i}: ${a[i].name} vs ${b[i].name}`);
    continue;
  }
  bytes += a[i].bytes.length;
  if (!timeless(a[i].name, a[i].bytes).equals(timeless(b[i].name, b[i].bytes))) {
    if (differ++ < 10) console.log(`member ${a[i].name}: bytes differ (${a[i].bytes.length} vs ${b[i].bytes.length})`);
  }
}
console.log(`${a.length} members, ${(bytes / 2 ** 20).toFixed(1)} MiB uncompressed: ${differ === 0 ? 'the same names in the same order and the same bytes (exported_at aside)' : `${differ} differences`}`);
process.exit(differ === 0 ? 0 : 1);
