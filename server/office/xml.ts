// XML for Office parts: strict well-formedness, no DTD, no entities beyond XML's five and character
// references, and a small namespace-aware tree so the converters can match on local names whatever prefix
// the producing application chose.
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { OfficeError } from './office-error.js';

// Office parts are shallow; a group shape inside a group shape is the deepest legitimate nesting. Anything
// deeper is hostile and would only cost stack.
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
const REFERENCE = /&(?:#x([0-9a-fA-F]+)|#([0-9]+)|([A-Za-z][\w.-]*));/g;
// Any DTD is refused outright: OOXML never carries one, and it is where entity expansion attacks live.
const DOCTYPE = /<!DOCTYPE/i;

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  removeNSPrefix: false,
  processEntities: false,
  htmlEntities: false,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  cdataPropName: '#cdata',
  ignoreDeclaration: true,
  ignorePiTags: true,
  maxNestedTags: XML_MAX_DEPTH,
});

/** Decode an Office XML part (UTF-8, or UTF-16 with a byte-order mark) and parse it; `part` names it in errors. */
export function parseXmlPart(bytes: Buffer, part: string): XmlElement {
  return parseXml(decode(bytes), part);
}

export function parseXml(text: string, part: string): XmlElement {
  if (DOCTYPE.test(text)) throw new OfficeError(`XML part has a DTD, refused: ${part}`);
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw new OfficeError(`Malformed XML in ${part}: ${valid.err.msg} (line ${valid.err.line})`);
  let raw: unknown;
  try {
    raw = parser.parse(text);
  } catch (err) {
    throw new OfficeError(`Malformed XML in ${part}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const roots = convertList(raw, new Map([['xml', XML_NS]]), part).filter(isElement);
  const root = roots[0];
  if (!root || roots.length !== 1) throw new OfficeError(`Malformed XML in ${part}: expected one root element`);
  return root;
}

function decode(bytes: Buffer): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes.subarray(2));
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes.subarray(2));
  return new TextDecoder('utf-8', { ignoreBOM: false }).decode(bytes);
}

type Scope = ReadonlyMap<string, string>;

function convertList(raw: unknown, scope: Scope, part: string): XmlNode[] {
  if (!Array.isArray(raw)) return [];
  const out: XmlNode[] = [];
  for (const item of raw as Record<string, unknown>[]) {
    for (const [key, value] of Object.entries(item)) {
      if (key === ':@') continue;
      if (key === '#text') out.push(decodeReferences(String(value), part));
      else if (key === '#cdata') out.push(cdataText(value));
      else out.push(convertElement(key, value, item[':@'], scope, part));
    }
  }
  return out;
}

function cdataText(value: unknown): string {
  if (!Array.isArray(value)) return '';
  return value.map((v: Record<string, unknown>) => String(v['#text'] ?? '')).join('');
}

function convertElement(name: string, children: unknown, rawAttrs: unknown, parent: Scope, part: string): XmlElement {
  const written = Object.entries((rawAttrs ?? {}) as Record<string, unknown>).map(
    ([k, v]) => [k, decodeReferences(String(v), part)] as const,
  );
  let scope = parent;
  for (const [key, value] of written) {
    if (key === 'xmlns' || key.startsWith('xmlns:')) {
      if (scope === parent) scope = new Map(parent);
      (scope as Map<string, string>).set(key === 'xmlns' ? '' : key.slice(6), value);
    }
  }
  const attrs: XmlAttr[] = [];
  for (const [key, value] of written) {
    if (key === 'xmlns' || key.startsWith('xmlns:')) continue;
    const [prefix, local] = splitName(key);
    // Unprefixed attributes are in no namespace, whatever the default namespace is.
    attrs.push({ local, ns: prefix ? (scope.get(prefix) ?? '') : '', value });
  }
  const [prefix, local] = splitName(name);
  return { name, local, ns: scope.get(prefix) ?? '', attrs, children: convertList(children, scope, part) };
}

function splitName(name: string): [string, string] {
  const colon = name.indexOf(':');
  return colon < 0 ? ['', name] : [name.slice(0, colon), name.slice(colon + 1)];
}

function decodeReferences(text: string, part: string): string {
  if (!text.includes('&')) return text;
  return text.replace(REFERENCE, (whole, hex?: string, dec?: string, named?: string) => {
    if (named !== undefined) {
      const ch = PREDEFINED[named];
      if (ch === undefined) throw new OfficeError(`Malformed XML in ${part}: undefined entity ${whole}`);
      return ch;
    }
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
