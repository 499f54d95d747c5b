import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { highlightTree, tokenText } from './highlight-tree.js';
import { highlightLanguages } from '../../scripts/vendor-assets.mjs';

// The same browser build the page loads (scripts/vendor-assets.mjs copies it to dist/renderer/vendor/hljs).
const es = path.join(path.dirname(createRequire(import.meta.url).resolve('@highlightjs/cdn-assets/package.json')), 'es');
interface Hljs {
  registerLanguage(name: string, grammar: unknown): void;
  highlight(code: string, o: { language: string; ignoreIllegals: boolean }): { value: string };
}
const hljs = (await import(pathToFileURL(path.join(es, 'core.min.js')).href) as { default: Hljs }).default;
for (const name of ['javascript', 'xml', 'python']) {
  hljs.registerLanguage(name, (await import(pathToFileURL(path.join(es, 'languages', `${name}.min.js`)).href) as { default: unknown }).default);
}

describe('highlightTree', () => {
  it('reads highlight.js output into classed spans whose text is the code, exactly', () => {
    const code = 'const a = "<b>" && 1 < 2; // \'quoted\'';
    const tree = highlightTree(hljs.highlight(code, { language: 'javascript', ignoreIllegals: true }).value);
    expect(tree).not.toBeNull();
    expect(tokenText(tree ?? [])).toBe(code);
    expect(tree?.[0]).toEqual({ cls: 'hljs-keyword', children: ['const'] });
    expect(tree).toContainEqual({ cls: 'hljs-comment', children: ["// 'quoted'"] });
  });

  it('keeps an <img onerror> in an HTML block as text inside token spans: nothing but span elements', () => {
    const code = '<img src=x onerror="alert(1)"><script>alert(2)</script>';
    const tree = highlightTree(hljs.highlight(code, { language: 'xml', ignoreIllegals: true }).value) ?? [];
    expect(tokenText(tree)).toBe(code);
    const classes: string[] = [];
    const walk = (ts: typeof tree) => ts.forEach((t) => typeof t !== 'string' && (classes.push(t.cls), walk(t.children)));
    walk(tree);
    expect(classes.length).toBeGreaterThan(3);
    expect(classes.every((c) => /^(hljs-|language-)[\w -]+$/.test(c))).toBe(true);
  });

  it('refuses anything but spans, their closing tags and highlight.js\'s five entities', () => {
    expect(highlightTree('<img src=x onerror=alert(1)>')).toBeNull();
    expect(highlightTree('<span class="a" onclick="x">y</span>')).toBeNull();
    expect(highlightTree('<span class="a">unclosed')).toBeNull();
    expect(highlightTree('a</span>')).toBeNull();
    expect(highlightTree('&nbsp;')).toBeNull();
    expect(highlightTree('a &lt; b &amp;&amp; &quot;c&quot; &#x27;d&#x27; &gt;')).toEqual(['a < b && "c" \'d\' >']);
  });
});

describe('the language table (vendor/hljs/languages.json)', () => {
  it('finds the grammar file for a fence\'s name or alias', async () => {
    const table = await highlightLanguages(path.join(es, 'languages'));
    expect(table).toMatchObject({ js: 'javascript', ts: 'typescript', py: 'python', sh: 'bash', html: 'xml', 'c++': 'cpp', yml: 'yaml', rs: 'rust', golang: 'go' });
    expect(Object.keys(table).length).toBeGreaterThan(300);
  });
});
