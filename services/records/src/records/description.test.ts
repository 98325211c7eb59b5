import { cutAtWord, describeRecord, DESCRIPTION_MAX_LENGTH } from './description';

const bolt = { name: 'M8 hex bolt', record_type: 'product', collection: 'fasteners' };

describe('describeRecord', () => {
  it('names the record, its type and collection, and its telling values in one sentence', () => {
    const text = describeRecord({ ...bolt, collection_data: { material: 'steel', standard: 'DIN 933', price: 0.12 } });
    expect(text).toBe('M8 hex bolt is a product in the fasteners collection with material steel, standard DIN 933, price 0.12.');
  });

  it('describes a record without data by what it is and where it belongs', () => {
    expect(describeRecord({ ...bolt, collection_data: {} })).toBe('M8 hex bolt is a product in the fasteners collection.');
  });

  it('uses "an" before a type starting with a vowel', () => {
    expect(describeRecord({ name: 'Blue Mug', record_type: 'item', collection: 'kitchen', collection_data: {} })).toBe(
      'Blue Mug is an item in the kitchen collection.',
    );
  });

  it('puts telling keys such as brand and material before others', () => {
    const text = describeRecord({ ...bolt, collection_data: { warehouse_bin: 'A7', material: 'steel', brand: 'Würth' } });
    expect(text).toBe('M8 hex bolt is a product in the fasteners collection with brand Würth, material steel, warehouse bin A7.');
  });

  it('leaves out nested objects, long text, links and identifiers', () => {
    const text = describeRecord({
      ...bolt,
      collection_data: {
        dimensions: { length: 20 },
        notes: 'short',
        long_text: 'x'.repeat(61),
        datasheet: 'https://example.com/bolt.pdf',
        id: 'abc-123',
        grade: '8.8',
      },
    });
    expect(text).toBe('M8 hex bolt is a product in the fasteners collection with grade 8.8.');
  });

  it('renders booleans as yes or no and short lists joined by slashes', () => {
    const text = describeRecord({ ...bolt, collection_data: { in_stock: true, colors: ['red', 'blue'] } });
    expect(text).toBe('M8 hex bolt is a product in the fasteners collection with colors red/blue, in stock yes.');
  });

  it('reads camelCase and snake_case keys as words', () => {
    const text = describeRecord({ ...bolt, collection_data: { unitPrice: 3, pack_size: 100 } });
    expect(text).toBe('M8 hex bolt is a product in the fasteners collection with unit price 3, pack size 100.');
  });

  it('never exceeds 300 characters and cuts a long name at a word boundary', () => {
    const name = Array.from({ length: 120 }, (_, i) => `word${i}`).join(' ');
    const text = describeRecord({ name, record_type: 'product', collection: 'c', collection_data: { brand: 'Acme' } });
    expect(text.length).toBeLessThanOrEqual(DESCRIPTION_MAX_LENGTH);
    expect(text.endsWith('…')).toBe(true);
    expect(text.slice(0, -1)).toMatch(/word\d+$/);
  });

  it('stops adding values before the sentence passes 300 characters', () => {
    const data = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`field_${i}`, 'v'.repeat(40)]));
    const text = describeRecord({ ...bolt, collection_data: data });
    expect(text.length).toBeLessThanOrEqual(DESCRIPTION_MAX_LENGTH);
    expect(text.endsWith('.')).toBe(true);
    expect(text).toContain('with field 0 ');
  });

  it('collapses line breaks in values and the name', () => {
    const text = describeRecord({ name: 'M8\nhex  bolt', record_type: 'product', collection: 'fasteners', collection_data: { finish: 'zinc\nplated' } });
    expect(text).toBe('M8 hex bolt is a product in the fasteners collection with finish zinc plated.');
  });
});

describe('cutAtWord', () => {
  it('keeps text that fits', () => {
    expect(cutAtWord('short text', 20)).toBe('short text');
  });

  it('cuts at the last word that fits and adds an ellipsis', () => {
    expect(cutAtWord('alpha beta gamma delta', 15)).toBe('alpha beta…');
  });
});
