import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { attr, childElements, findAll, parseXml, parseXmlPart, textContent, XML_MAX_DEPTH, type XmlElement } from './xml.js';

describe('parseXml', () => {
  it('resolves namespaces whatever the prefix and decodes the five entities and character references', () => {
    const root = parseXml(
      '<?xml version="1.0"?><x:a xmlns:x="urn:one" xmlns:rel="urn:rel"><x:b rel:id="r1" id="7">1 &lt; 2 &amp; &#x263A;&#65;&quot;&apos;&gt;</x:b><b xmlns="urn:two"/></x:a>',
      'part',
    );
    expect([root.local, root.ns]).toEqual(['a', 'urn:one']);
    const [b1, b2] = childElements(root);
    expect([b1!.local, b1!.ns, b2!.local, b2!.ns]).toEqual(['b', 'urn:one', 'b', 'urn:two']);
    expect(attr(b1!, 'id', 'urn:rel')).toBe('r1');
    expect(attr(b1!, 'id')).toBe('7');
    expect(textContent(b1!)).toBe('1 < 2 & ☺A"\'>');
  });

  it('keeps whitespace and CDATA as written', () => {
    const root = parseXml('<t xml:space="preserve">  a <![CDATA[&lt;b>]]> </t>', 'p');
    expect(textContent(root)).toBe('  a &lt;b> ');
  });

  it('decodes UTF-16 with a byte-order mark', () => {
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<a>é</a>', 'utf16le')]);
    expect(textContent(parseXmlPart(bytes, 'p'))).toBe('é');
  });

  it('refuses DTDs, undefined entities, malformed XML, several roots and deep nesting', () => {
    expect(() => parseXml('<!DOCTYPE a [<!ENTITY e "x">]><a>&e;</a>', 'p.xml')).toThrow('XML part has a DTD, refused: p.xml');
    expect(() => parseXml('<a>&nbsp;</a>', 'p.xml')).toThrow('Malformed XML in p.xml: undefined entity &nbsp;');
    expect(() => parseXml('<a><b></a>', 'p.xml')).toThrow(/^Malformed XML in p\.xml: /);
    expect(() => parseXml('<a/><b/>', 'p.xml')).toThrow(/^Malformed XML in p\.xml/);
    expect(() => parseXml('', 'p.xml')).toThrow(/^Malformed XML in p\.xml/);
    const deep = '<a>'.repeat(XML_MAX_DEPTH + 2) + '</a>'.repeat(XML_MAX_DEPTH + 2);
    expect(() => parseXml(deep, 'p.xml')).toThrow(/^Malformed XML in p\.xml: /);
  });

  it('finds descendants in document order', () => {
    const root = parseXml('<r><p><t>1</t><q><t>2</t></q></p><t>3</t></r>', 'p');
    expect(findAll(root, 't').map(textContent)).toEqual(['1', '2', '3']);
  });
});

describe('parseXml on generated documents', () => {
  interface Tree {
    name: string;
    attrs: [string, string][];
    children: (Tree | string)[];
  }
  const escapeText = (t: string) => t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const escapeAttr = (t: string) => escapeText(t).replace(/"/g, '&quot;');
  const serialize = (t: Tree): string =>
    `<${t.name}${t.attrs.map(([k, v]) => ` ${k}="${escapeAttr(v)}"`).join('')}>${t.children
      .map((c) => (typeof c === 'string' ? escapeText(c) : serialize(c)))
      .join('')}</${t.name}>`;
  // Text without the characters XML forbids; adjacent strings merge when parsed, so join them.
  const text = fc.string({ unit: fc.constantFrom('a', 'é', ' ', '&', '<', '>', '"', "'", '\n', '😀', ']') , minLength: 1, maxLength: 8 });
  const name = fc.constantFrom('a', 'b', 'x:c', 'w:t', 'é1');
  const { tree } = fc.letrec<{ tree: Tree }>((tie) => ({
    tree: fc.record({
      name,
      attrs: fc.uniqueArray(fc.tuple(fc.constantFrom('k', 'v', 'r:id', 'xml:space'), text), { selector: (a) => a[0], maxLength: 3 }),
      children: fc.array(fc.oneof({ depthSize: 'small', withCrossShrink: true }, text, tie('tree') as fc.Arbitrary<Tree>), { maxLength: 4 }),
    }),
  }));
  const normalize = (t: Tree): unknown => {
    const children: unknown[] = [];
    for (const c of t.children) {
      if (typeof c === 'string' && typeof children[children.length - 1] === 'string') children[children.length - 1] += c;
      else children.push(typeof c === 'string' ? c : normalize(c));
    }
    return { name: t.name, attrs: t.attrs.map(([k, v]) => [k.split(':').pop(), v]), children };
  };
  const fromParsed = (el: XmlElement): unknown => ({
    name: el.name,
    attrs: el.attrs.map((a) => [a.local, a.value]),
    children: el.children.map((c) => (typeof c === 'string' ? c : fromParsed(c))),
  });

  it('reads back exactly what was serialized', () => {
    fc.assert(
      fc.property(tree, (t) => {
        const xml = `<?xml version="1.0"?>\n<!-- c -->${serialize(t).replace(/^<(\S+?)([ >])/, '<$1 xmlns:x="urn:x" xmlns:w="urn:w" xmlns:r="urn:r"$2')}`;
        expect(fromParsed(parseXml(xml, 'gen'))).toEqual(normalize(t));
      }),
      { numRuns: 300 },
    );
  });

  it('refuses every strict prefix of a document (truncation is never silently accepted)', () => {
    fc.assert(
      fc.property(tree, fc.nat(), (t, cut) => {
        const xml = serialize(t);
        const at = cut % xml.length;
        expect(() => parseXml(xml.slice(0, at), 'gen')).toThrow(/^Malformed XML in gen/);
      }),
      { numRuns: 300 },
    );
  });
});
