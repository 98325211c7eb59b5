import { UnparseableFileError } from './types';
import { csvParserWithRowLimit, parseCsv } from './csv';
import { byteStream, collect, dataOf, failuresOf, fixtureBytes, fixtureStream } from '../../test/fixtures/fixtures';

const columns = (n: number) => Array.from({ length: n }, (_, i) => `c${i + 1}`).join(',');
const read = (input: Parameters<typeof parseCsv>[0], opts = {}) => collect(parseCsv(input, opts));

describe('parseCsv', () => {
  it('reads every column of a comma CSV, typing numbers and booleans but keeping codes and EANs as strings', async () => {
    const { items, error } = await read(fixtureStream('products.csv'));
    expect(error).toBeUndefined();
    expect(items.map((item) => item.index)).toEqual([0, 1, 2]);
    expect(dataOf(items)).toEqual([
      {
        name: 'Hex bolt M8x40',
        sku: '0042',
        ean: '4006381333931',
        price: 0.12,
        stock: 1500,
        in_stock: true,
        material: 'Stainless steel A2',
        description: 'Fully threaded, DIN 933',
      },
      // The empty material cell is left out; the quoted description keeps its line break.
      { name: 'Washer 8.4', sku: '0815', ean: '4006381333948', price: 0.03, stock: -3, in_stock: false, description: 'Flat washer\nfor M8 bolts' },
      { name: 'Anchor "Max" 10', sku: 'A-10', ean: '4006381333955', price: 12, stock: 250, in_stock: true, material: 'Nylon PA6', description: 'Wall anchor, 10 mm' },
    ]);
  });

  it('reads a semicolon CSV with a byte order mark, CRLF line ends, empty lines and decimal commas', async () => {
    const { items, error } = await read(fixtureStream('products-semicolon-bom.csv'));
    expect(error).toBeUndefined();
    expect(dataOf(items)).toEqual([
      { name: 'Schraube M6', price: 1.25, ean: '4006381333962', in_stock: true, note: 'a; b' },
      { name: 'Mutter M6', price: 0.08, in_stock: false },
    ]);
  });

  it('reads a semicolon file with decimal commas by its number format: 2.500 is 2500, 1.234,56 and 0,5 are numbers', async () => {
    const csv = 'name;price;weight;stock\nBolt;1.234,56;0,5;2.500\nNut;2.500;1,25;12\nWasher;0,08;2;1.000\n';
    const { items } = await read(byteStream(csv));
    expect(dataOf(items)).toEqual([
      { name: 'Bolt', price: 1234.56, weight: 0.5, stock: 2500 },
      { name: 'Nut', price: 2500, weight: 1.25, stock: 12 },
      { name: 'Washer', price: 0.08, weight: 2, stock: 1000 },
    ]);
  });

  it('keeps a number that reads two ways as text when the file does not tell', async () => {
    const { items } = await read(byteStream('name;stock;code\nBolt;2.500;0042\nNut;1,234;7\n'));
    expect(dataOf(items)).toEqual([
      { name: 'Bolt', stock: '2.500', code: '0042' },
      { name: 'Nut', stock: '1,234', code: 7 },
    ]);
  });

  it('reads a semicolon file with decimal points by its number format too', async () => {
    const { items } = await read(byteStream('name;price;stock\nBolt;0.125;2,500\nNut;1.5;2.500\n'));
    expect(dataOf(items)).toEqual([
      { name: 'Bolt', price: 0.125, stock: 2500 },
      { name: 'Nut', price: 1.5, stock: 2.5 },
    ]);
  });

  it('reads decimal commas in a tab-separated file', async () => {
    const { items } = await read(byteStream('name\tprice\tstock\nBolt\t1,5\t2.500\n'));
    expect(dataOf(items)).toEqual([{ name: 'Bolt', price: 1.5, stock: 2500 }]);
  });

  it('reads a comma file as before: decimal points, no thousands separators', async () => {
    const { items } = await read(byteStream('name,price,stock,size\nBolt,2.500,"1,500","0,5"\n'));
    expect(dataOf(items)).toEqual([{ name: 'Bolt', price: 2.5, stock: '1,500', size: '0,5' }]);
  });

  it('reads the rows after the first 1,000 with the number format the first ones showed', async () => {
    const rows = Array.from({ length: 1200 }, (_, i) => `item ${i};${i === 0 ? '0,5' : '2.500'}`);
    const { items } = await read(byteStream(`name;price\n${rows.join('\n')}\n`, 100));
    expect(dataOf(items).map((d) => d.price)).toEqual([0.5, ...Array(1199).fill(2500)]);
  });

  it('gives out the rows read to decide the number format before a row over the size limit ends the file', async () => {
    const csv = `name;price\nfirst;0,5\nsecond;"${'x'.repeat(5000)}\nthird;3\n`;
    const { items, error } = await collect(csvParserWithRowLimit(1000)(byteStream(csv, 256), {}));
    expect(dataOf(items)).toEqual([{ name: 'first', price: 0.5 }]);
    expect(error!.message).toBe('line 3: a row runs on for more than 1000 bytes (a quote left open?)');
  });

  it('gives the same items when the file arrives one byte at a time', async () => {
    for (const name of ['products.csv', 'products-semicolon-bom.csv', 'malformed.csv']) {
      const whole = await read(fixtureStream(name));
      const bytewise = await read(fixtureStream(name, 1));
      expect(bytewise).toEqual(whole);
    }
  });

  it('reports each malformed row with its line number and text, and reads on', async () => {
    const { items, error } = await read(fixtureStream('malformed.csv'));
    expect(error).toBeUndefined();
    expect(items.map((item) => item.index)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(dataOf(items).map((d) => d.name)).toEqual(['Good bolt', 'Another good one', 'Last good']);
    expect(failuresOf(items)).toEqual([
      { index: 1, error: 'line 3: expected 3 fields, found 4', raw: 'Extra field,2.5,steel,oops' },
      { index: 2, error: 'line 4: text follows the closing quote of a field', raw: '"Text after quote"x,3,brass' },
      { index: 4, error: 'line 6: expected 3 fields, found 2', raw: 'Short row,5' },
    ]);
  });

  it('reports a quote left open to the end of the file as one row and reads the lines after it again', async () => {
    const { items, error } = await read(fixtureStream('unclosed-quote.csv'));
    expect(error).toBeUndefined();
    expect(items.map((item) => (item.ok ? item.data.name : `failed: ${item.error}`))).toEqual([
      'First',
      'failed: line 3: quote not closed',
      'Third',
      'Fourth',
    ]);
    expect(failuresOf(items)[0]!.raw).toMatch(/^Second,2,"this quote never closes\nThird/);
  });

  it('reports the same lines and rows when the file has CRLF line ends', async () => {
    for (const name of ['malformed.csv', 'unclosed-quote.csv']) {
      const crlf = fixtureBytes(name).toString('utf8').replace(/\n/g, '\r\n');
      const { items } = await read(byteStream(crlf, 7));
      const lf = (await read(fixtureStream(name))).items;
      expect(items.map((item) => (item.ok ? item : { ...item, raw: String(item.raw).replace(/\r\n/g, '\n') }))).toEqual(lf);
    }
  });

  it('counts line numbers across quoted line breaks and empty lines', async () => {
    const csv = 'name,note\n"a","one\ntwo\nthree"\n\n\nb,x,y\n';
    const { items } = await read(byteStream(csv));
    expect(failuresOf(items)).toEqual([{ index: 1, error: 'line 7: expected 2 fields, found 3', raw: 'b,x,y' }]);
  });

  it('skips rows of empty cells, as spreadsheets leave below the data, and counts their lines', async () => {
    const csv = 'name,price\r\nBolt,1\r\n,\r\n  ,  \r\n\r\nNut,2,3\r\n,,\r\n';
    const { items } = await read(byteStream(csv));
    expect(items).toEqual([
      { index: 0, ok: true, data: { name: 'Bolt', price: 1 } },
      { index: 1, ok: false, error: 'line 6: expected 2 fields, found 3', raw: 'Nut,2,3' },
    ]);
  });

  it('stores a quoted empty cell as the empty string and leaves an unquoted empty cell out', async () => {
    const csv = 'name,note,color,size\r\nBolt,"",,"  "\r\n"Nut","",red,\r\n"",""\r\n';
    const { items } = await read(byteStream(csv, 3));
    expect(items).toEqual([
      { index: 0, ok: true, data: { name: 'Bolt', note: '', size: '' } },
      { index: 1, ok: true, data: { name: 'Nut', note: '', color: 'red' } },
    ]);
    const semicolon = await read(byteStream('name;price;note\nBolt;"";"x ""y"""\n'));
    expect(dataOf(semicolon.items)).toEqual([{ name: 'Bolt', price: '', note: 'x "y"' }]);
  });

  it('keeps a quote inside an unquoted field as text', async () => {
    const { items } = await read(byteStream('name,size\nPipe,1/2" steel\n'));
    expect(dataOf(items)).toEqual([{ name: 'Pipe', size: '1/2" steel' }]);
  });

  it('accepts trailing empty fields beyond the header, as spreadsheets write them', async () => {
    const { items } = await read(byteStream('name,price\nBolt,1,,\n'));
    expect(items).toEqual([{ index: 0, ok: true, data: { name: 'Bolt', price: 1 } }]);
  });

  it('detects a tab delimiter and ignores delimiters inside quotes when detecting', async () => {
    expect(dataOf((await read(byteStream('name\tprice\nBolt\t1\n'))).items)).toEqual([{ name: 'Bolt', price: 1 }]);
    expect(dataOf((await read(byteStream('"name;x",price\n"a;b",1\n'), { nameColumn: 'name;x' })).items)).toEqual([
      { 'name;x': 'a;b', price: 1 },
    ]);
  });

  it('takes the delimiter that gives every row as many fields as the header, over the one the header holds most', async () => {
    const csv = 'Name, first\tName, last\tPrice, EUR\r\nAda\tLovelace\t1,5\r\nAlan\tTuring\t2\r\n';
    const { items } = await read(byteStream(csv), { nameColumn: 'Name, first' });
    expect(dataOf(items)).toEqual([
      { 'Name, first': 'Ada', 'Name, last': 'Lovelace', 'Price, EUR': 1.5 },
      { 'Name, first': 'Alan', 'Name, last': 'Turing', 'Price, EUR': 2 },
    ]);
  });

  it('reads Windows-1252 text, as spreadsheets export it', async () => {
    const bytes = Buffer.from('name,maker\nBohrer,M\xfcller \x80\n', 'latin1');
    expect(dataOf((await read(byteStream(bytes))).items)).toEqual([{ name: 'Bohrer', maker: 'Müller €' }]);
  });

  it('reads UTF-16 text with a byte order mark', async () => {
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('name\tmaker\r\nBohrer\tMüller\r\n', 'utf16le')]);
    expect(dataOf((await read(byteStream(bytes, 5))).items)).toEqual([{ name: 'Bohrer', maker: 'Müller' }]);
  });

  it('keeps UTF-8 characters cut between chunks whole', async () => {
    const { items } = await read(byteStream('name,maker\nBohrer,Müller 日本\n', 1));
    expect(dataOf(items)).toEqual([{ name: 'Bohrer', maker: 'Müller 日本' }]);
  });

  it('uses the name column given and names columns without a header', async () => {
    const { items } = await read(byteStream('title,,price\nBolt,x,1\n'), { nameColumn: 'title' });
    expect(dataOf(items)).toEqual([{ title: 'Bolt', column_2: 'x', price: 1 }]);
  });

  it('keeps a column named __proto__ as an ordinary field', async () => {
    const { items } = await read(byteStream('name,__proto__\nBolt,x\n'));
    const data = dataOf(items)[0]!;
    expect(Object.getPrototypeOf(data)).toBe(Object.prototype);
    expect(Object.entries(data)).toEqual([
      ['name', 'Bolt'],
      ['__proto__', 'x'],
    ]);
  });

  it('yields nothing for a file with only a header row', async () => {
    expect(await read(byteStream('name,price\n'))).toEqual({ items: [] });
    expect(await read(byteStream('name,price'))).toEqual({ items: [] });
  });

  it.each([
    ['an empty file', '', 'the CSV file is empty'],
    ['blank lines only', '\n\r\n  \n', 'the CSV file is empty'],
    ['a file without a header row', fixtureBytes('no-header.csv'), 'the first row holds values, not column names'],
    ['a header without the name column', 'title,price\nBolt,1\n', 'the CSV header has no "name" column (columns: title, price)'],
    ['a header naming a column twice', 'name,price,price\n', 'the CSV header names the column "price" twice'],
    ['a binary file', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]), 'the file is binary, not CSV'],
    ['a broken header row', 'name,"pri"ce\nBolt,1\n', 'the CSV header row is malformed'],
    ['a header of 1,001 columns', `name,${columns(1000)}\nBolt${',1'.repeat(1000)}\n`, 'the CSV header has 1001 columns; a record holds at most 1000 fields'],
    ['a header of 100,000 columns', `name,${columns(99_999)}\n`, 'the CSV header has 100000 columns; a record holds at most 1000 fields'],
    ['a column name of 257 characters', `name,${'c'.repeat(257)}\nBolt,1\n`, `the CSV header names column 2 with more than 256 characters ("${'c'.repeat(40)}…")`],
  ])('rejects %s as unparseable', async (_case, content, message) => {
    const { items, error } = await read(byteStream(content));
    expect(items).toEqual([]);
    expect(error).toBeInstanceOf(UnparseableFileError);
    expect(error!.message).toContain(message);
  });

  it('reads a header of 1,000 columns', async () => {
    const { items, error } = await read(byteStream(`name,${columns(999)}\nBolt${',1'.repeat(999)}\n`));
    expect(error).toBeUndefined();
    expect(Object.keys(dataOf(items)[0]!)).toHaveLength(1000);
  });

  it('gives up on a row over 1 MB, after the rows before it', async () => {
    const csv = `name,note\nfirst,ok\nsecond,${'x'.repeat(1024 * 1024)}\nthird,3\n`;
    const { items, error } = await read(byteStream(csv));
    expect(dataOf(items)).toEqual([{ name: 'first', note: 'ok' }]);
    expect(error).toBeInstanceOf(UnparseableFileError);
    expect(error!.message).toBe('line 3: a row runs on for more than 1 MB (a quote left open?)');
  });

  it('gives up on a row that runs on past the row size limit, after the rows before it', async () => {
    const csv = `name,note\nfirst,ok\nsecond,"${'x'.repeat(5000)}\nthird,3\n`;
    const { items, error } = await collect(csvParserWithRowLimit(1000)(byteStream(csv, 256), {}));
    expect(dataOf(items)).toEqual([{ name: 'first', note: 'ok' }]);
    expect(error).toBeInstanceOf(UnparseableFileError);
    expect(error!.message).toBe('line 3: a row runs on for more than 1000 bytes (a quote left open?)');
  });

  it('passes on a failure of the upload stream unchanged', async () => {
    const failure = new Error('upload larger than 50 MB');
    const input = byteStream('name\na\n');
    input.destroy(failure);
    const { error } = await read(input);
    expect(error).toBe(failure);
  });
});
