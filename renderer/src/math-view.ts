// Math typeset with KaTeX, loaded from the page's own server the first time a formula comes on screen (its
// module, 0.6 MB, its stylesheet, and each font the browser asks for). Until then, or if it cannot load, the
// formula shows as its TeX source. KaTeX builds DOM nodes itself (never HTML text); math-tree.ts moves the few
// style attributes it writes to the CSSOM so the page's policy holds.
import type { KatexOptions } from 'katex';
import { loadStylesheet } from './lazy-assets.js';
import { styleAttributesToCssom, type KatexNode } from './math-tree.js';

const BASE = new URL('./vendor/katex/', import.meta.url);

/**
 * The largest box a formula may draw, in ems (KaTeX's maxSize): `\rule{9999em}{9999em}` would cover the
 * window. A whole-page matrix is well under this.
 */
export const MAX_MATH_SIZE_EM = 40;
/** Macro expansions per formula (KaTeX's maxExpand, default 1000): a recursive \def stops early. */
export const MAX_MATH_EXPANSIONS = 500;

export const KATEX_OPTIONS: KatexOptions = {
  // No \href, \url, \includegraphics, \htmlClass, \htmlStyle, \htmlData: the agent's text cannot link or style.
  trust: false,
  // A formula KaTeX cannot read shows as its source, in red, with the reason as its title.
  throwOnError: false,
  maxSize: MAX_MATH_SIZE_EM,
  maxExpand: MAX_MATH_EXPANSIONS,
  // Unicode text in math and other non-LaTeX forms are rendered, without a console warning for each.
  strict: 'ignore',
};

/** The part of KaTeX's module used here: its tree (so styles can be moved before DOM is built). */
interface Katex {
  __renderToDomTree(tex: string, options: KatexOptions): KatexNode;
}

let katex: Promise<Katex> | null = null;
let ready: Katex | null = null;

function load(): Promise<Katex> {
  katex ??= Promise.all([
    import(new URL('katex.mjs', BASE).href) as Promise<{ default: Katex }>,
    loadStylesheet(new URL('katex.min.css', BASE).href),
  ]).then(([m]) => (ready = m.default));
  return katex;
}

function typeset(el: HTMLElement, k: Katex, tex: string, display: boolean): void {
  try {
    const tree = k.__renderToDomTree(tex, { ...KATEX_OPTIONS, displayMode: display });
    styleAttributesToCssom(tree);
    el.replaceChildren(tree.toNode());
    el.dataset.typeset = 'true';
  } catch (err) {
    // throwOnError is off, so only an internal failure lands here: the source stays.
    console.warn('Math could not be typeset:', err);
  }
}

/** Typeset now if KaTeX is already here (a reply re-rendered as it streams must not flash its source). */
export function renderMathNow(el: HTMLElement, tex: string, display: boolean): boolean {
  if (ready) typeset(el, ready, tex, display);
  return ready !== null;
}

/** Typeset `el` (which shows `tex` as text): at once when KaTeX is here, else once it has loaded. */
export function renderMath(el: HTMLElement, tex: string, display: boolean): Promise<void> | null {
  if (renderMathNow(el, tex, display)) return null;
  return load().then(
    (k) => typeset(el, k, tex, display),
    (err: unknown) => console.warn('Math typesetting unavailable:', err),
  );
}
