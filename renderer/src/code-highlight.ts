// Code blocks coloured by language with highlight.js, loaded from the page's own server on first use: its core
// (24 KB) when the first code block with a language comes on screen, then each language's grammar the first
// time a block in it does (scripts/vendor-assets.mjs copies them; languages.json maps names and aliases to
// files). Until then, and for a language it does not know, the block is the plain text it already was.
// highlight.js answers with HTML; highlight-tree.ts reads it into spans and text nodes, never innerHTML.
import { h } from './dom.js';
import { highlightTree, type Token } from './highlight-tree.js';
import { loadStylesheet } from './lazy-assets.js';

/**
 * The longest code highlighted. highlight.js's grammars are regular expressions run over the whole block; a
 * reply's code is a few KB. Past this the block stays plain, so a 1 MiB paste never holds the page.
 */
export const MAX_HIGHLIGHT_CHARS = 100_000;

const BASE = new URL('./vendor/hljs/', import.meta.url);

/** Dispatched (bubbling) on a code block once it is coloured: its text nodes were replaced (reveal.ts marks masks again). */
export const CODE_PAINTED = 'satchel-code-painted';

/** The part of highlight.js's API used here (its browser build ships no typings). */
interface HighlightJs {
  registerLanguage(name: string, grammar: unknown): void;
  getLanguage(name: string): unknown;
  highlight(code: string, options: { language: string; ignoreIllegals: boolean }): { value: string };
}

let core: Promise<HighlightJs> | null = null;
let table: Promise<Record<string, string>> | null = null;
const grammars = new Map<string, Promise<boolean>>();

function loadCore(): Promise<HighlightJs> {
  core ??= Promise.all([
    import(new URL('core.min.js', BASE).href) as Promise<{ default: HighlightJs }>,
    loadStylesheet(new URL('./highlight.css', import.meta.url).href),
  ]).then(([m]) => m.default);
  return core;
}

function loadTable(): Promise<Record<string, string>> {
  table ??= fetch(new URL('languages.json', BASE).href).then((r) => {
    if (!r.ok) throw new Error(`languages.json: ${r.status}`);
    return r.json() as Promise<Record<string, string>>;
  });
  return table;
}

/** The language's grammar registered (true), or it is not one highlight.js has (false). */
async function loadLanguage(hljs: HighlightJs, lang: string): Promise<string | null> {
  const file = (await loadTable())[lang.toLowerCase()];
  if (!file || !/^[a-z0-9_-]+$/.test(file)) return null;
  let loaded = grammars.get(file);
  if (!loaded) {
    loaded = (import(new URL(`languages/${file}.min.js`, BASE).href) as Promise<{ default: unknown }>).then((m) => {
      hljs.registerLanguage(file, m.default);
      return true;
    });
    grammars.set(file, loaded);
  }
  return (await loaded) ? file : null;
}

/** Whether the library and this language are already here, so a block can be coloured without waiting. */
let ready: HighlightJs | null = null;
const readyLanguages = new Map<string, string | null>();

function tokens(nodes: readonly Token[]): Node[] {
  return nodes.map((t) => (typeof t === 'string' ? document.createTextNode(t) : h('span', { class: t.cls }, tokens(t.children))));
}

function paint(code: HTMLElement, hljs: HighlightJs, language: string, text: string): void {
  const tree = highlightTree(hljs.highlight(text, { language, ignoreIllegals: true }).value);
  if (!tree) return;
  code.replaceChildren(...tokens(tree));
  code.classList.add('hljs');
  code.dataset.highlighted = language;
  code.dispatchEvent(new Event(CODE_PAINTED, { bubbles: true }));
}

/**
 * Colour now if the library and this language's grammar are already here, or if there is nothing to colour
 * (true: done); false when they still have to load.
 */
export function highlightCodeNow(code: HTMLElement, lang: string, text: string): boolean {
  if (!lang || text.length > MAX_HIGHLIGHT_CHARS) return true;
  const key = lang.toLowerCase();
  if (!ready || !readyLanguages.has(key)) return false;
  const language = readyLanguages.get(key);
  if (language) paint(code, ready, language, text);
  return true;
}

/** Colour `code` (a `<code data-lang>` whose text is `text`): at once when everything is loaded, else later. */
export function highlightCode(code: HTMLElement, lang: string, text: string): Promise<void> | null {
  if (highlightCodeNow(code, lang, text)) return null;
  const key = lang.toLowerCase();
  return loadCore()
    .then(async (hljs) => {
      const language = await loadLanguage(hljs, key);
      ready = hljs;
      readyLanguages.set(key, language);
      if (language) paint(code, hljs, language, text);
    })
    .catch((err: unknown) => {
      // Offline assets missing (a broken build) or a grammar that throws: the block stays plain text.
      console.warn('Code highlighting unavailable:', err);
    });
}
