import { PassThrough } from 'node:stream';
import { UnparseableFileError, type ParsedItem } from './types';
import { parseXml } from './xml';
import { byteStream, collect, dataOf, failuresOf, fixtureStream } from '../../test/fixtures/fixtures';

const read = (input: Parameters<typeof parseXml>[0], opts = {}) => collect(parseXml(input, opts));
const xml = (text: string, opts = {}) => read(byteStream(text), opts);

describe('parseXml', () => {
  it('makes records of the children of a lone wrapper element, with attributes, nesting, repeats, CDATA and types', async () => {
    const { items, error } = await read(fixtureStream('catalog.xml'));
    expect(error).toBeUndefined();
    expect(items).toEqual([
      {
        index: 0,
        ok: true,
        data: {
          id: 'P-1',
          sku: '0042',
          name: 'Hex bolt M8x40',
          ean: '4006381333931',
          price: { currency: 'EUR', '#text': 0.12 },
          in_stock: true,
          tag: ['bolt', 'M8'],
          dimensions: { unit: 'mm', length: 40, diameter: 8 },
          description: 'Fully threaded, <b>DIN 933</b> & ISO 4017',
        },
      },
      {
        index: 1,
        ok: true,
        // The empty <notes/> is left out; the attribute "name" clashes with the child element and takes an @.
        data: { id: 'P-2', '@name': 'washer-8', name: 'Washer 8.4', price: { currency: 'EUR', '#text': 0.03 }, in_stock: false },
      },
    ]);
  });

  it('gives the same items when the file arrives one byte at a time', async () => {
    for (const name of ['catalog.xml', 'catalog-broken.xml']) {
      expect(await read(fixtureStream(name, 1))).toEqual(await read(fixtureStream(name)));
    }
  });

  it('makes records of the root element children when there are several', async () => {
    const { items } = await xml('<products><product><name>A</name></product><product sku="2"/><item>C</item></products>');
    expect(dataOf(items)).toEqual([{ name: 'A' }, { sku: 2 }, { '#text': 'C' }]);
  });

  it('makes one record of a lone child of the root that is not a mere wrapper', async () => {
    expect(dataOf((await xml('<catalog><product><name>A</name><tag>x</tag><tag>y</tag></product></catalog>')).items)).toEqual([
      { name: 'A', tag: ['x', 'y'] },
    ]);
    expect(dataOf((await xml('<catalog><product id="1"><name>A</name></product></catalog>')).items)).toEqual([
      { id: 1, name: 'A' },
    ]);
  });

  it('makes records of every element the record tag names, at any depth, the outermost one when they nest', async () => {
    const { items, error } = await read(fixtureStream('items-nested.xml'), { recordTag: 'item' });
    expect(error).toBeUndefined();
    expect(dataOf(items)).toEqual([{ name: 'Hammer' }, { name: 'Saw' }, { name: 'Drill', item: { name: 'Bit' } }]);
  });

  it('reports a record with a mistyped closing tag on its own and reads on', async () => {
    const { items, error } = await read(fixtureStream('catalog-broken.xml'));
    expect(error).toBeUndefined();
    expect(items.map((item) => item.index)).toEqual([0, 1, 2, 3]);
    expect(dataOf(items)).toEqual([{ name: 'First', price: 1 }, { id: 3, name: 'Third' }, { name: 'Fourth & last' }]);
    expect(failuresOf(items)).toEqual([
      {
        index: 1,
        error: '<product> starting at line 4: Unmatched closing tag: nmae at line 4, column 31',
        raw: { name: { '#text': 'Second</nmae>', price: 2 } },
      },
    ]);
  });

  it('reports a record whose own start tag is malformed', async () => {
    const { items, error } = await xml('<c>\n<p><n>A</n></p>\n<p id=2><n>B</n></p>\n<p><n>C</n></p>\n</c>');
    expect(error).toBeUndefined();
    expect(items.map((item) => (item.ok ? item.data.n : item.error))).toEqual([
      'A',
      expect.stringMatching(/^<p> starting at line 3: Unquoted attribute value at line 3/),
      'C',
    ]);
  });

  it('reports a record with an unknown entity, since no DTD entity is expanded', async () => {
    const doc = '<!DOCTYPE c [<!ENTITY big "lots">]>\n<c><p><n>A &big;</n></p><p><n>B &amp; C</n></p></c>';
    const { items } = await xml(doc);
    expect(items.map((item) => (item.ok ? item.data : item.error))).toEqual([
      expect.stringContaining('Invalid character entity'),
      { n: 'B & C' },
    ]);
  });

  it('never fetches or reads an external entity', async () => {
    const doc = '<?xml version="1.0"?>\n<!DOCTYPE c [<!ENTITY secret SYSTEM "file:///etc/hostname">]>\n<c><p><n>&secret;</n></p></c>';
    const { items } = await xml(doc);
    expect(items).toEqual([{ index: 0, ok: false, error: expect.stringContaining('Invalid character entity'), raw: { n: '&secret;' } }]);
  });

  it('starts the next record at a sibling that opens inside a record left open', async () => {
    const { items, error } = await xml('<c><p><n>A</n></q><p><n>B</n></p><p><n>C</n></p></c>');
    expect(error).toBeUndefined();
    expect(items.map((item) => (item.ok ? item.data.n : 'broken'))).toEqual(['broken', 'B', 'C']);
  });

  it('ends with UnparseableFileError when the file stops inside the root element, after the records before', async () => {
    const { items, error } = await read(fixtureStream('catalog-truncated.xml'));
    expect(dataOf(items)).toEqual([{ name: 'First' }]);
    expect(error).toBeInstanceOf(UnparseableFileError);
    expect(error!.message).toBe('the XML ends before <catalog> is closed (Unclosed root tag at line 5, column 1)');
  });

  it('reads the encoding the XML declaration names', async () => {
    const bytes = Buffer.from('<?xml version="1.0" encoding="ISO-8859-1"?><c><p><n>M\xfcller</n></p><p><n>B</n></p></c>', 'latin1');
    expect(dataOf((await read(byteStream(bytes))).items)).toEqual([{ n: 'Müller' }, { n: 'B' }]);
  });

  it('reads a file declared UTF-16 that has neither byte order mark nor NUL bytes as the text it is', async () => {
    const { items } = await xml('<?xml version="1.0" encoding="UTF-16"?><c><p><n>Müller</n></p><p/></c>');
    expect(dataOf(items)).toEqual([{ n: 'Müller' }, {}]);
  });

  it('names the fields of a Google merchant feed without the g: prefix, by its namespace, whatever the prefix', async () => {
    const feed = (prefix: string) => `<?xml version="1.0"?>
<rss version="2.0" xmlns:${prefix}="http://base.google.com/ns/1.0">
  <channel>
    <title>Shop</title>
    <item>
      <${prefix}:id>A-1</${prefix}:id>
      <title>Hex bolt</title>
      <${prefix}:title>Hex bolt M8 (feed title)</${prefix}:title>
      <${prefix}:price>12.50 EUR</${prefix}:price>
      <${prefix}:shipping><${prefix}:country>DE</${prefix}:country><${prefix}:price>4.95 EUR</${prefix}:price></${prefix}:shipping>
    </item>
  </channel>
</rss>`;
    const expected = {
      id: 'A-1',
      title: 'Hex bolt',
      // An unprefixed field of the same name is there: this one keeps its prefix.
      'PREFIX:title': 'Hex bolt M8 (feed title)',
      price: '12.50 EUR',
      shipping: { country: 'DE', price: '4.95 EUR' },
    };
    for (const prefix of ['g', 'gm']) {
      const { items } = await xml(feed(prefix), { recordTag: 'item' });
      const { 'PREFIX:title': ownTitle, ...rest } = expected;
      expect(dataOf(items)).toEqual([{ ...rest, [`${prefix}:title`]: ownTitle }]);
    }
  });

  it('names Atom, RSS content, Dublin Core and Media RSS fields plainly, keeps unknown prefixes and clashing names', async () => {
    const { items } = await xml(
      `<rss xmlns:atom="http://www.w3.org/2005/Atom" xmlns:content="http://purl.org/rss/1.0/modules/content/"
        xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:media="http://search.yahoo.com/mrss/" xmlns:shop="urn:example:shop">
        <channel><item>
          <link>https://example.com/a</link>
          <atom:link href="https://example.com/a.atom" rel="self"/>
          <dc:creator>Ada</dc:creator>
          <content:encoded><![CDATA[<p>Full text</p>]]></content:encoded>
          <media:thumbnail url="https://example.com/a.jpg" media:width="120"/>
          <media:title>Thumb</media:title>
          <dc:title>Dublin title</dc:title>
          <shop:stock>5</shop:stock>
          <undeclared:x>1</undeclared:x>
        </item></channel>
      </rss>`,
      { recordTag: 'item' },
    );
    expect(dataOf(items)).toEqual([
      {
        link: 'https://example.com/a',
        'atom:link': { href: 'https://example.com/a.atom', rel: 'self' },
        creator: 'Ada',
        encoded: '<p>Full text</p>',
        thumbnail: { url: 'https://example.com/a.jpg', width: 120 },
        // Two well-known namespaces would both make it `title`: each keeps its prefix.
        'media:title': 'Thumb',
        'dc:title': 'Dublin title',
        'shop:stock': 5,
        'undeclared:x': 1,
      },
    ]);
  });

  it('maps a prefix only where its declaration is in scope, and a prefix bound again to another namespace not', async () => {
    const { items } = await xml(`<feed>
      <entry xmlns:g="http://base.google.com/ns/1.0"><name>a</name><g:price>1</g:price></entry>
      <entry><name>b</name><g:price>2</g:price></entry>
      <entry xmlns:g="urn:other"><name>c</name><g:price>3</g:price></entry>
    </feed>`);
    expect(dataOf(items)).toEqual([
      { 'xmlns:g': 'http://base.google.com/ns/1.0', name: 'a', price: 1 },
      { name: 'b', 'g:price': 2 },
      { 'xmlns:g': 'urn:other', name: 'c', 'g:price': 3 },
    ]);
  });

  it('keeps an element named __proto__ as an ordinary field', async () => {
    const data = dataOf((await xml('<c><p><__proto__>x</__proto__></p><p/></c>')).items)[0]!;
    expect(Object.getPrototypeOf(data)).toBe(Object.prototype);
    expect(Object.keys(data)).toEqual(['__proto__']);
  });

  it.each([
    ['an empty file', '', {}, 'the XML file holds no element'],
    ['text that is not XML', 'name,price\nbolt,1\n', {}, 'invalid XML: Non-whitespace before first tag at line 1'],
    ['broken markup before the first record', '<c>&bogus;<p><n>A</n></p></c>', {}, 'invalid XML: Invalid character entity'],
    ['text after the root element', '<c><p><n>A</n></p><p/></c>trailing', {}, 'invalid XML: Text data outside of root node'],
    ['a record tag that matches nothing', '<c><p/></c>', { recordTag: 'item' }, 'the XML holds no <item> element'],
    ['a declared encoding that does not exist', '<?xml version="1.0" encoding="klingon"?><c/>', {}, 'unsupported encoding: klingon'],
    ['a binary file', Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46]), {}, 'the file is binary, not XML'],
  ])('rejects %s as unparseable', async (_case, content, opts, message) => {
    const { error } = await read(byteStream(content), opts);
    expect(error).toBeInstanceOf(UnparseableFileError);
    expect(error!.message).toContain(message);
  });

  it('streams the records of a large wrapper before the file ends', async () => {
    const input = new PassThrough();
    const items = parseXml(input, {})[Symbol.asyncIterator]();
    input.write('<catalog><products>');
    // Past the first 64 KB, which are read whole to tell the encoding.
    for (let i = 0; i < 1500; i++) input.write(`<product><name>P${i}</name><note>${'n'.repeat(60)}</note></product>`);
    const first: ParsedItem[] = [];
    for (let i = 0; i < 1000; i++) first.push((await items.next()).value as ParsedItem);
    expect(first[999]).toEqual({ index: 999, ok: true, data: { name: 'P999', note: 'n'.repeat(60) } });
    input.end('</products></catalog>');
    const rest: ParsedItem[] = [];
    for (let next = await items.next(); !next.done; next = await items.next()) rest.push(next.value);
    expect(rest).toHaveLength(500);
    expect(rest[499]).toEqual({ index: 1499, ok: true, data: { name: 'P1499', note: 'n'.repeat(60) } });
  });

  describe('bounds', () => {
    const nested = (levels: number, leaf = 'x') => `${'<n>'.repeat(levels)}${leaf}${'</n>'.repeat(levels)}`;

    it('refuses a file nested 100,000 levels deep after the records before it, holding no deeper stack', async () => {
      const text = `<catalog><item><name>ok</name></item><item><name>deep</name>${nested(100_000)}</item></catalog>`;
      const { items, error } = await xml(text);
      expect(dataOf(items)).toEqual([{ name: 'ok' }]);
      expect(error).toBeInstanceOf(UnparseableFileError);
      expect(error!.message).toBe('elements are nested more than 100 levels deep (line 1)');
    });

    it('makes a record nested more than 64 levels below its element a dead letter and reads on', async () => {
      const { items, error } = await xml(`<catalog><item id="1"><name>deep</name>${nested(70)}</item><item><name>next</name></item></catalog>`);
      expect(error).toBeUndefined();
      expect(failuresOf(items)).toEqual([
        { index: 0, error: '<item> starting at line 1: elements are nested more than 64 levels below <item>', raw: { id: 1 } },
      ]);
      expect(dataOf(items)).toEqual([{ name: 'next' }]);
    });

    it('counts the depth of a record inside a lone wrapper from the record, not from the wrapper', async () => {
      const { items, error } = await xml(`<catalog><products><product><name>a</name>${nested(64)}</product><product><name>b</name></product></products></catalog>`);
      expect(error).toBeUndefined();
      expect(items.map((item) => item.ok)).toEqual([true, true]);
      expect(dataOf(items).map((d) => d.name)).toEqual(['a', 'b']);
    });

    it('makes a record over 1 MB a dead letter without keeping it, and reads on', async () => {
      const big = `<item sku="B"><name>big</name>${'<part>abcdefghij</part>'.repeat(60_000)}</item>`;
      const { items, error } = await xml(`<catalog><item><name>a</name></item>${big}<item><name>c</name></item></catalog>`);
      expect(error).toBeUndefined();
      expect(failuresOf(items)).toEqual([{ index: 1, error: '<item> starting at line 1: the record is larger than 1 MB', raw: { sku: 'B' } }]);
      expect(dataOf(items)).toEqual([{ name: 'a' }, { name: 'c' }]);
    });

    it('takes a lone wrapper over 1 MB for the container of its records rather than one large record', async () => {
      const products = Array.from({ length: 400 }, (_, i) => `<product><name>P${i}</name><text>${'t'.repeat(3000)}</text></product>`);
      const { items, error } = await xml(`<catalog><products>${products.join('')}</products></catalog>`);
      expect(error).toBeUndefined();
      expect(items.every((item) => item.ok)).toBe(true);
      expect(dataOf(items).map((d) => d.name)).toEqual(products.map((_, i) => `P${i}`));
    });
  });
});
