import { mapRecord } from './record-mapping';

function record(raw: unknown, nameColumn?: string) {
  const m = mapRecord(raw, { nameColumn });
  if (!m.ok) throw new Error(`expected a record, got: ${m.error}`);
  return m.record;
}

function rejection(raw: unknown, nameColumn?: string) {
  const m = mapRecord(raw, { nameColumn });
  if (m.ok) throw new Error(`expected a rejection, got ${JSON.stringify(m.record)}`);
  return m.error;
}

describe('mapRecord', () => {
  it('takes name, source_id and collection_data of a batch record', () => {
    expect(record({ name: 'Bolt', source_id: 'A1', collection_data: { price: 1.5, ok: true } })).toEqual({
      name: 'Bolt',
      source_id: 'A1',
      collection_data: { price: 1.5, ok: true },
    });
  });

  it('puts every other field into collection_data, the explicit object winning on a shared key', () => {
    expect(record({ name: 'Bolt', price: 2, material: 'steel', collection_data: { price: 3, din: 'DIN 933' } })).toEqual({
      name: 'Bolt',
      collection_data: { material: 'steel', price: 3, din: 'DIN 933' },
    });
  });

  it('keeps description and source_url as record fields', () => {
    expect(record({ name: 'Guide', description: 'How to', source_url: 'https://x.test/a', page: 1 })).toEqual({
      name: 'Guide',
      description: 'How to',
      source_url: 'https://x.test/a',
      collection_data: { page: 1 },
    });
  });

  it('reads the name from the name column and keeps a name field of another column as data', () => {
    expect(record({ title: 'Hex nut', name: 'internal', ean: '4006381333931' }, 'title')).toEqual({
      name: 'Hex nut',
      collection_data: { name: 'internal', ean: '4006381333931' },
    });
  });

  it('trims the name and turns a number name or source_id into text', () => {
    expect(record({ name: '  Washer  ', source_id: 12345 })).toMatchObject({ name: 'Washer', source_id: '12345' });
    expect(record({ name: 42 })).toMatchObject({ name: '42' });
  });

  it('treats an empty or null source_id as none', () => {
    expect(record({ name: 'x', source_id: '' })).not.toHaveProperty('source_id');
    expect(record({ name: 'x', source_id: null })).not.toHaveProperty('source_id');
  });

  it.each([
    [{ collection_data: { price: 2 } }, 'name is required'],
    [{ name: '   ' }, 'name is required'],
    [{ name: null }, 'name is required'],
    [{ name: { first: 'a' } }, 'name must be a string'],
    [{ name: ['a'] }, 'name must be a string'],
    [{ name: 'x', collection_data: 'price=2' }, 'collection_data must be an object'],
    [{ name: 'x', collection_data: [1, 2] }, 'collection_data must be an object'],
    [{ name: 'x', source_id: { id: 1 } }, 'source_id must be a string'],
    [{ name: 'x', description: ['a'] }, 'description must be a string'],
    [{ name: 'x'.repeat(501) }, 'name must be at most 500 characters'],
    [{ name: 'x', source_id: 'y'.repeat(501) }, 'source_id must be at most 500 characters'],
    ['just text', 'a record must be a JSON object'],
    [[{ name: 'x' }], 'a record must be a JSON object'],
    [null, 'a record must be a JSON object'],
  ])('rejects %j: %s', (raw, error) => {
    expect(rejection(raw)).toBe(error);
  });

  it('names the missing name column', () => {
    expect(rejection({ name: 'x' }, 'title')).toBe("name is required: column 'title' is missing or empty");
  });

  it('rejects what PostgreSQL cannot store, naming where it is', () => {
    expect(rejection({ name: 'a\u0000b' })).toMatch(/^name contains a NUL character/);
    expect(rejection({ name: 'ok', note: 'bad \uD800 half' })).toMatch(/^collection_data\.note contains/);
    let deep: Record<string, unknown> = { v: 1 };
    for (let i = 0; i < 40; i++) deep = { d: deep };
    expect(rejection({ name: 'ok', deep })).toMatch(/nested more than 32 levels/);
  });

  it('rejects collection_data of more than 1,000 fields over every nested level, or with a field name over 256 characters', () => {
    const fields = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}`, i]));
    // name, source_id and description are record fields, not collection_data.
    expect(mapRecord({ name: 'ok', source_id: 's', description: 'd', ...fields(1000) }).ok).toBe(true);
    expect(rejection({ name: 'wide', ...fields(100_000) })).toBe('collection_data has more than 1000 fields, counted over every nested level');
    expect(rejection({ name: 'wide', spec: fields(600), collection_data: { more: fields(600) } })).toMatch(/more than 1000 fields/);
    expect(rejection({ name: 'long', tags: [{ ['k'.repeat(257)]: 1 }] })).toMatch(
      /^collection_data\.tags\[0\] has a field name longer than 256 characters \("k{40}…"\)$/,
    );
  });

  it('keeps a __proto__ key as data', () => {
    const raw = JSON.parse('{"name":"x","__proto__":{"polluted":true}}');
    const r = record(raw);
    expect(Object.getPrototypeOf(r.collection_data)).toBe(Object.prototype);
    expect(Object.keys(r.collection_data)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("rejects the other vocabulary's data object rather than keep it as one loose field", () => {
    expect(rejection({ name: 'x', vertical_data: { size: 'M8' } })).toBe("vertical_data is not a field of this route's vocabulary; send the data as collection_data");
    expect(mapRecord({ name: 'x', collection_data: { size: 'M8' } }, { dataField: 'vertical_data' })).toEqual({
      ok: false,
      error: "collection_data is not a field of this route's vocabulary; send the data as vertical_data",
    });
    expect(mapRecord({ name: 'x', vertical_data: { size: 'M8' } }, { dataField: 'vertical_data' })).toMatchObject({ ok: true, record: { collection_data: { size: 'M8' } } });
    // A CSV column of that name holds text: data like any other column.
    expect(record({ name: 'x', vertical_data: 'plain' }).collection_data).toEqual({ vertical_data: 'plain' });
  });
});
