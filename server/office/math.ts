// Word equations (Office Math, OMML `m:oMath`) as one line of linear text each. Mammoth drops them, so a
// document of formulas reached the agent as the prose around them alone (markitdown's equations.docx: 9 of
// pandoc's 62 words). The linear form is close to what Word's own "linear" equation view shows:
// fractions as (a)/(b), scripts as x^2 and x_i, roots as √(x), n-ary operators with their limits.
import { collapseWhitespace } from './markdown.js';
import { attr, childElements, findAll, firstChild, isElement, textContent, type XmlElement } from './xml.js';

const MATH_NS = 'http://schemas.openxmlformats.org/officeDocument/2006/math';
const isMath = (el: XmlElement) => el.ns === MATH_NS;

/** Every equation of `el` (a Word part), in document order, as linear text; empty equations left out. */
export function equations(el: XmlElement): string[] {
  // findAll does not descend into a match: an m:oMath inside another (legal, rare) is part of the outer one.
  return findAll(el, 'oMath')
    .filter(isMath)
    .map((m) => collapseWhitespace(linear(m)).replace(/ +(?=[)\]},;|])/g, ''))
    .filter(Boolean);
}

/** The value of a structure's property (`m:chr`, `m:begChr`…) or its default. */
function property(el: XmlElement, props: string, name: string, fallback: string): string {
  const pr = firstChild(el, props);
  const node = pr && firstChild(pr, name);
  return node ? (attr(node, 'val', MATH_NS) ?? attr(node, 'val') ?? '') : fallback;
}

const part = (el: XmlElement, local: string) => {
  const child = firstChild(el, local);
  return child ? linear(child) : '';
};
// A script or limit of more than one character is grouped, so `x^(n+1)` does not read as `x^n+1`; a single
// one ends with a space, as in Word's linear form, so `β_t x_t` does not read as `β_tx_t`.
const group = (s: string) => ([...s].length > 1 ? `(${s})` : `${s} `); // by code point: 𝑥 is one character

function linear(el: XmlElement): string {
  if (!isMath(el)) {
    // Word runs inside an equation (w:r, w:t) carry text too; their properties do not.
    return el.local === 't' ? textContent(el) : el.local.endsWith('Pr') ? '' : childElements(el).map(linear).join('');
  }
  switch (el.local) {
    case 't':
      return textContent(el);
    case 'f':
      return `${group(part(el, 'num'))}/${group(part(el, 'den'))}`;
    case 'sSup':
      return `${part(el, 'e')}^${group(part(el, 'sup'))}`;
    case 'sSub':
      return `${part(el, 'e')}_${group(part(el, 'sub'))}`;
    case 'sSubSup':
      return `${part(el, 'e')}_${group(part(el, 'sub'))}^${group(part(el, 'sup'))}`;
    case 'sPre':
      return `_${group(part(el, 'sub'))}^${group(part(el, 'sup'))}${part(el, 'e')}`;
    case 'rad': {
      const degree = part(el, 'deg');
      return `${degree ? `${group(degree)}` : ''}√(${part(el, 'e')})`;
    }
    case 'd': {
      const open = property(el, 'dPr', 'begChr', '(');
      const close = property(el, 'dPr', 'endChr', ')');
      const sep = property(el, 'dPr', 'sepChr', '|');
      return `${open}${childElements(el, 'e').map(linear).join(sep)}${close}`;
    }
    case 'nary': {
      const sub = part(el, 'sub');
      const sup = part(el, 'sup');
      return `${property(el, 'naryPr', 'chr', '∫')}${sub ? `_${group(sub)}` : ''}${sup ? `^${group(sup)}` : ''} ${part(el, 'e')}`;
    }
    case 'func':
      return `${part(el, 'fName')} ${part(el, 'e')}`;
    case 'limLow':
      return `${part(el, 'e')}_${group(part(el, 'lim'))}`;
    case 'limUpp':
      return `${part(el, 'e')}^${group(part(el, 'lim'))}`;
    case 'm':
      return `[${childElements(el, 'mr').map((row) => childElements(row, 'e').map(linear).join(', ')).join('; ')}]`;
    case 'eqArr':
      return childElements(el, 'e').map(linear).join('; ');
    default:
      // m:oMath, m:e, m:r, m:box, m:acc, m:bar, m:groupChr…: their content, without properties.
      return el.local.endsWith('Pr') ? '' : el.children.filter(isElement).map(linear).join('');
  }
}
