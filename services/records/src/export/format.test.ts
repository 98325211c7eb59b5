import type { RecordDto } from '@trove/contracts';
import { RECORD_COLUMNS, csvHeader, csvRows, flattenData, jsonRecords, JSON_CLOSE, JSON_OPEN, recordJson } from './format';

function record(overrides: Partial<RecordDto> = {}): RecordDto {
  return {
    id: '00000000-0000-4000-8000-000000000001',
    tenant_id: 't',
    name: 'M8 hex bolt',
    description: null,
    description_llm: 'M8 hex bolt is a product in the fasteners collection.',
    collection: 'fasteners',
    record_type: 'product',
    collection_data: {},
    indexing_status: 'indexed',
    status: 'active',
    visibility: 'private',
    generation: 1,
    source_name: null,
    source_id: null,
    source_url: null,
    source_type: 'api',
    version: 1,
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
    ...overrides,
  };
}

describe('flattenData', () => {
  it('dots nested keys and writes arrays, empty objects, null, booleans and numbers as cells', () => {
    const flat = flattenData({ size: { d: 8, thread: { pitch: 1.25 } }, tags: ['a', 'b'], none: null, empty: {}, ok: true, n: -0.5, s: 'x' });
    expect(Object.fromEntries(flat)).toEqual({
      'size.d': '8',
      'size.thread.pitch': '1.25',
      tags: '["a","b"]',
      none: '',
      empty: '{}',
      ok: 'true',
      n: '-0.5',
      s: 'x',
    });
  });
});

describe('CSV', () => {
  it('writes the record columns, then the collection_data columns with their prefix', () => {
    expect(csvHeader(['material', 'size.d'])).toBe(`${RECORD_COLUMNS.join(',')},collection_data.material,collection_data.size.d\n`);
  });

  it('puts each field under its column, an absent one empty, and quotes what needs quoting', () => {
    const text = csvRows([record({ name: 'Bolt, "hex"\nM8', collection_data: { size: { d: 8 } } })], ['material', 'size.d']);
    const expected = [
      '00000000-0000-4000-8000-000000000001',
      '"Bolt, ""hex""\nM8"',
      'fasteners',
      'product',
      'active',
      'private',
      '',
      'M8 hex bolt is a product in the fasteners collection.',
      'api',
      '',
      '',
      '',
      '1',
      'indexed',
      '2026-01-01T00:00:00.000Z',
      '2026-01-01T00:00:00.000Z',
      '',
      '8',
    ].join(',');
    expect(text).toBe(`${expected}\n`);
  });

  it('puts a leading quote on text a spreadsheet would run as a formula, but not on a number', () => {
    const triggers = { eq: '=1+2', plus: '+1', minus: '-cmd', at: '@SUM(A1)', tab: '\tx', cr: '\rx', text_number: '-5', number: -5, inner: 'a=b' };
    const paths = Object.keys(triggers).sort();
    const text = csvRows([record({ name: '=HYPERLINK("http://x")', collection_data: triggers })], paths);
    const cells = text.slice(0, -1).split(',');
    expect(cells[1]).toBe(`"'=HYPERLINK(""http://x"")"`);
    expect(Object.fromEntries(paths.map((p, i) => [p, cells[RECORD_COLUMNS.length + i]]))).toEqual({
      eq: "'=1+2",
      plus: "'+1",
      minus: "'-cmd",
      at: "'@SUM(A1)",
      tab: "'\tx",
      cr: `"'\rx"`,
      text_number: "'-5",
      number: '-5',
      inner: 'a=b',
    });
  });
});

describe('JSON', () => {
  it('joins records written part after part into one array', () => {
    const a = record();
    const b = record({ id: '00000000-0000-4000-8000-000000000002' });
    const c = record({ id: '00000000-0000-4000-8000-000000000003' });
    const json = (r: typeof a) => recordJson(r, JSON.stringify(r.collection_data));
    const text = JSON_OPEN + jsonRecords([json(a)], 0) + jsonRecords([json(b), json(c)], 1) + jsonRecords([], 3) + JSON_CLOSE;
    expect(JSON.parse(text)).toEqual([a, b, c]);
    expect(JSON.parse(JSON_OPEN + JSON_CLOSE)).toEqual([]);
  });

  it("writes a record's collection_data as the stored JSON text, in the record's own place, whatever its text fields hold", () => {
    const r = record({ name: 'A "collection_data": {} trap $& $1', description: '\\u0000collection_data\\u0000' });
    const stored = '{"size": {"d": 8}, "tags": ["a", "b"], "note": "$&"}';
    const text = recordJson(r, stored);
    expect(JSON.parse(text)).toEqual({ ...r, collection_data: { size: { d: 8 }, tags: ['a', 'b'], note: '$&' } });
    expect(Object.keys(JSON.parse(text))).toEqual(Object.keys(r));
  });
});
