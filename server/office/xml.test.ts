import { describe, expect, it } from 'vitest';
import { attr, childElements, findAll, parseXml, parseXmlPart, textContent, XML_MAX_DEPTH } from './xml.js';

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
