// XML for Office parts: strict well-formedness, no DTD, no entities beyond XML's five and character
// references, and a small namespace-aware tree so the converters can match on local names whatever prefix
// the producing application chose.
import { OfficeError, printable } from './office-error.js';

// Office parts are shallow; a group shape inside a group shape is the deepest legitimate nesting. Anything
// deeper is hostile, and the converters walk the tree recursively.
export const XML_MAX_DEPTH = 128;

export interface XmlElement {
  /** Qualified name as written, e.g. `p:sldId`. */
  name: string;
  /** Local name, e.g. `sldId`. */
  local: string;
  /** Namespace URI, '' when none is in scope. */
  ns: string;
  attrs: XmlAttr[];
  children: XmlNode[];
}
export interface XmlAttr {
  local: string;
  ns: string;
  value: string;
}
export type XmlNode = XmlElement | string;

const XML_NS = 'http://www.w3.org/XML/1998/namespace';
const PREDEFINED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
// Every `&` must start a complete reference; a bare one is not well-formed XML.
const REFERENCE = /&(?:#x([0-9a-fA-F]{1,6});|#([0-9]{1,7});|([A-Za-z_][\w.-]*);|)/g;
// Any DTD is refused outright: OOXML never carries one, and it is where entity expansion attacks live.
const DOCTYPE = /<!DOCTYPE/i;
// A start tag: name, attributes (each preceded by whitespace, quoted, no `<` inside), optional `/`.
const START_TAG = /<([^\s/>!?="'<]+)((?:\s+[^\s/>="'<]+\s*=\s*(?:"[^"<]*"|'[^'<]*'))*)\s*(\/?)>/y;
const END_TAG = /<\/([^\s/>!?="'<]+)\s*>/y;
const ATTRIBUTE = /([^\s/>="'<]+)\s*=\s*(?:"([^"<]*)"|'([^'<]*)')/g;
const NAME = /^[\p{L}_][\p{L}\p{N}_.\-\u00B7]*(?::[\p{L}_][\p{L}\p{N}_.\-\u00B7]*)?$/u;

/** Decode an Office XML part (UTF-8, or UTF-16 with a byte-order mark) and parse it; `part` names it in errors. */
export function parseXmlPart(bytes: Buffer, part: string): XmlElement {
  return parseXml(decode(bytes), printable(part));
}

/**
 * A strict, non-validating XML parser for Office parts. It checks well-formedness (names, quoting, nesting,
 * one root, complete references), refuses DTDs, and expands nothing but XML's five entities and character
 * references. It replaced fast-xml-parser (XMLValidator plus XMLParser) because conversion runs on the server's
 * event loop and that pair took two to three times as long on a 4 MB sheet (docs/benchmarks/office-sidecars.md).
 */
export function parseXml(text: string, part: string): XmlElement {
  if (DOCTYPE.test(text)) throw new OfficeError(`XML part has a DTD, refused: ${part}`);
  const fail = (why: string, at: number): never => {
    throw new OfficeError(`Malformed XML in ${part}: ${why} (line ${lineOf(text, at)})`);
  };
  const stack: { el: XmlElement; scope: Scope }[] = [];
  let root: XmlElement | undefined;
  let pos = 0;
  while (pos < text.length) {
    const lt = text.indexOf('<', pos);
    const textEnd = lt < 0 ? text.length : lt;
    if (textEnd > pos) {
      const raw = text.slice(pos, textEnd);
      const top = stack[stack.length - 1];
      if (top) top.el.children.push(decodeReferences(raw, part));
      else if (/\S/.test(raw)) fail('text outside the root element', pos);
    }
    if (lt < 0) break;
    pos = lt;
    if (text.startsWith('<!--', pos)) {
      const end = text.indexOf('-->', pos + 4);
      if (end < 0) fail('unterminated comment', pos);
      pos = end + 3;
    } else if (text.startsWith('<![CDATA[', pos)) {
      const end = text.indexOf(']]>', pos + 9);
      const top = stack[stack.length - 1];
      if (end < 0 || !top) fail('misplaced or unterminated CDATA section', pos);
      top!.el.children.push(text.slice(pos + 9, end));
      pos = end + 3;
    } else if (text.startsWith('<?', pos)) {
      const end = text.indexOf('?>', pos + 2);
      if (end < 0) fail('unterminated processing instruction', pos);
      pos = end + 2;
    } else if (text.startsWith('</', pos)) {
      END_TAG.lastIndex = pos;
      const m = END_TAG.exec(text);
      const top = stack.pop();
      if (!m || !top || top.el.name !== m[1]) fail(`unexpected closing tag`, pos);
      pos = END_TAG.lastIndex;
    } else {
      START_TAG.lastIndex = pos;
      const m = START_TAG.exec(text);
      if (!m || !validName(m[1]!)) fail('malformed start tag', pos);
      if (root && stack.length === 0) fail('more than one root element', pos);
      if (stack.length >= XML_MAX_DEPTH) fail(`nesting deeper than ${XML_MAX_DEPTH}`, pos);
      const parent = stack[stack.length - 1];
      const { el, scope } = openElement(m![1]!, m![2]!, parent?.scope ?? ROOT_SCOPE, part, (why) => fail(why, pos));
      if (parent) parent.el.children.push(el);
      else root = el;
      if (!m![3]) stack.push({ el, scope });
      pos = START_TAG.lastIndex;
    }
  }
  if (stack.length > 0) fail(`unclosed element <${stack[stack.length - 1]!.el.name}>`, text.length);
  if (!root) fail('no root element', 0);
  return root!;
}

function lineOf(text: string, at: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < at; i = text.indexOf('\n', i + 1)) line += 1;
  return line;
}

function decode(bytes: Buffer): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes.subarray(2));
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes.subarray(2));
  return new TextDecoder('utf-8', { ignoreBOM: false }).decode(bytes);
}

type Scope = ReadonlyMap<string, string>;
const ROOT_SCOPE: Scope = new Map([['xml', XML_NS]]);

const NO_ATTRS: readonly XmlAttr[] = Object.freeze([]);

function openElement(
  name: string,
  attrText: string,
  parent: Scope,
  part: string,
  fail: (why: string) => never,
): { el: XmlElement; scope: Scope } {
  // Most Office elements (`<c>`, `<v>`, `<a:t>`) carry no attributes: no allocation for them.
  if (attrText === '') {
    const [prefix, local] = splitName(name);
    return { el: { name, local, ns: parent.get(prefix) ?? '', attrs: NO_ATTRS as XmlAttr[], children: [] }, scope: parent };
  }
  const keys: string[] = [];
  const values: string[] = [];
  ATTRIBUTE.lastIndex = 0;
  for (let m = ATTRIBUTE.exec(attrText); m; m = ATTRIBUTE.exec(attrText)) {
    const key = m[1]!;
    if (!validName(key) || keys.includes(key)) fail(`bad or repeated attribute ${key}`);
    keys.push(key);
    values.push(decodeReferences(m[2] ?? m[3] ?? '', part));
  }
  let scope = parent;
  for (let i = 0; i < keys.length; i += 1) {
    const key = keys[i]!;
    if (key === 'xmlns' || key.startsWith('xmlns:')) {
      if (scope === parent) scope = new Map(parent);
      (scope as Map<string, string>).set(key === 'xmlns' ? '' : key.slice(6), values[i]!);
    }
  }
  const attrs: XmlAttr[] = [];
  for (let i = 0; i < keys.length; i += 1) {
    const key = keys[i]!;
    if (key === 'xmlns' || key.startsWith('xmlns:')) continue;
    const [prefix, local] = splitName(key);
    // Unprefixed attributes are in no namespace, whatever the default namespace is.
    attrs.push({ local, ns: prefix ? (scope.get(prefix) ?? '') : '', value: values[i]! });
  }
  const [prefix, local] = splitName(name);
  return { el: { name, local, ns: scope.get(prefix) ?? '', attrs, children: [] }, scope };
}

// Office parts use a few dozen distinct names, repeated hundreds of thousands of times: check each once.
const nameCache = new Map<string, [string, string] | null>();
const NAME_CACHE_MAX = 4096;

function lookupName(name: string): [string, string] | null {
  let hit = nameCache.get(name);
  if (hit === undefined) {
    const colon = name.indexOf(':');
    hit = NAME.test(name) ? (colon < 0 ? ['', name] : [name.slice(0, colon), name.slice(colon + 1)]) : null;
    if (nameCache.size < NAME_CACHE_MAX) nameCache.set(name, hit);
  }
  return hit;
}

function validName(name: string): boolean {
  return lookupName(name) !== null;
}

/** Prefix and local part of an already validated name. */
function splitName(name: string): [string, string] {
  return lookupName(name) ?? ['', name];
}

function decodeReferences(text: string, part: string): string {
  if (!text.includes('&')) return text;
  return text.replace(REFERENCE, (whole, hex?: string, dec?: string, named?: string) => {
    if (named !== undefined) {
      const ch = PREDEFINED[named];
      if (ch === undefined) throw new OfficeError(`Malformed XML in ${part}: undefined entity ${whole}`);
      return ch;
    }
    if (hex === undefined && dec === undefined) throw new OfficeError(`Malformed XML in ${part}: bare '&' in text`);
    const code = hex !== undefined ? parseInt(hex, 16) : parseInt(dec ?? '', 10);
    const valid = code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff);
    return valid ? String.fromCodePoint(code) : '\uFFFD';
  });
}

export function isElement(node: XmlNode): node is XmlElement {
  return typeof node !== 'string';
}

/** Direct child elements, optionally only those with local name `local`. */
export function childElements(el: XmlElement, local?: string): XmlElement[] {
  return el.children.filter((c): c is XmlElement => isElement(c) && (local === undefined || c.local === local));
}

export function firstChild(el: XmlElement, local: string): XmlElement | undefined {
  return childElements(el, local)[0];
}

/** Descendants with local name `local`, in document order, not descending into matches. */
export function findAll(el: XmlElement, local: string, out: XmlElement[] = []): XmlElement[] {
  for (const child of el.children) {
    if (!isElement(child)) continue;
    if (child.local === local) out.push(child);
    else findAll(child, local, out);
  }
  return out;
}

/** An attribute by local name; `ns` narrows it to a namespace URI (a predicate allows several spellings). */
export function attr(el: XmlElement, local: string, ns: string | ((uri: string) => boolean) = ''): string | undefined {
  const match = typeof ns === 'function' ? ns : (uri: string) => uri === ns;
  return el.attrs.find((a) => a.local === local && match(a.ns))?.value;
}

/** All character data inside `el`, concatenated. */
export function textContent(el: XmlElement): string {
  return el.children.map((c) => (isElement(c) ? textContent(c) : c)).join('');
}
