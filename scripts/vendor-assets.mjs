// The renderer's third-party assets, copied from node_modules into dist/renderer/vendor at build time, so the
// page loads them from its own server (offline, allowed by its policy: script-src, style-src and font-src
// 'self'), and only when first needed (renderer/src/code-highlight.ts, math-view.ts):
// - highlight.js's browser build (@highlightjs/cdn-assets: ES modules, minified; the `highlight.js` package's
//   es/core.js re-exports CommonJS, which a browser cannot import), its core and every language as a file of
//   its own, plus languages.json: each language's name and aliases → its file, read from the grammars
//   themselves, so a fence's `py` or `sh` finds python or bash without loading anything else.
// - KaTeX's ES module, its stylesheet and its fonts in WOFF2 (every browser Electron and Chromium ship reads
//   WOFF2 first; the .woff and .ttf fallbacks would only add 0.7 MB to the app).
import { cpSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);

function packageDir(name) {
  return dirname(require.resolve(`${name}/package.json`));
}

/** name or alias → file name (without .min.js) under vendor/hljs/languages. */
export async function highlightLanguages(languagesDir) {
  const core = (await import(pathToFileURL(join(languagesDir, '..', 'core.min.js')).href)).default;
  const table = {};
  for (const file of readdirSync(languagesDir).filter((f) => f.endsWith('.min.js')).sort()) {
    const name = file.slice(0, -'.min.js'.length);
    const grammar = (await import(pathToFileURL(join(languagesDir, file)).href)).default;
    const def = grammar(core);
    for (const alias of [name, ...(def.aliases ?? [])]) {
      const key = String(alias).toLowerCase();
      // A language's own name wins over another's alias.
      if (!(key in table) || key === name) table[key] = name;
    }
  }
  return table;
}

export async function copyVendorAssets(outDir) {
  const hljsSrc = join(packageDir('@highlightjs/cdn-assets'), 'es');
  const hljsOut = join(outDir, 'vendor', 'hljs');
  mkdirSync(join(hljsOut, 'languages'), { recursive: true });
  cpSync(join(hljsSrc, 'core.min.js'), join(hljsOut, 'core.min.js'));
  for (const f of readdirSync(join(hljsSrc, 'languages')).filter((f) => f.endsWith('.min.js'))) {
    cpSync(join(hljsSrc, 'languages', f), join(hljsOut, 'languages', f));
  }
  writeFileSync(join(hljsOut, 'languages.json'), JSON.stringify(await highlightLanguages(join(hljsSrc, 'languages'))));

  const katexSrc = join(packageDir('katex'), 'dist');
  const katexOut = join(outDir, 'vendor', 'katex');
  mkdirSync(join(katexOut, 'fonts'), { recursive: true });
  cpSync(join(katexSrc, 'katex.mjs'), join(katexOut, 'katex.mjs'));
  cpSync(join(katexSrc, 'katex.min.css'), join(katexOut, 'katex.min.css'));
  for (const f of readdirSync(join(katexSrc, 'fonts')).filter((f) => f.endsWith('.woff2'))) {
    cpSync(join(katexSrc, 'fonts', f), join(katexOut, 'fonts', f));
  }
}
