import { facetFields, highlightParts } from './highlight';

describe('highlightParts', () => {
  it('reads the tagged matches and unescapes the text, never leaving markup to parse', () => {
    expect(highlightParts('<mark>Hex</mark> bolt &lt;b&gt; &amp; &quot;nut&quot; <mark>M8</mark>')).toEqual([
      { text: 'Hex', mark: true },
      { text: ' bolt <b> & "nut" ', mark: false },
      { text: 'M8', mark: true },
    ]);
    expect(highlightParts('no match')).toEqual([{ text: 'no match', mark: false }]);
  });
});

describe('facetFields', () => {
  it('picks the fields whose text, number or boolean values repeat, in order, at most three', () => {
    const records = [
      { collection_data: { sku: 'A1', material: 'steel', size: 8, tags: ['x'], price: 1 } },
      { collection_data: { sku: 'A2', material: 'brass', size: 8, tags: ['x'], price: 2 } },
      { collection_data: { sku: 'A3', material: 'steel', size: 10, tags: ['y'], price: 3, stock: true } },
    ];
    expect(facetFields(records)).toEqual(['material', 'size']);
    expect(facetFields(records, 1)).toEqual(['material']);
  });
});
