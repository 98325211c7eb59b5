import { dataQualityScore } from './entity';

describe('data_quality_score', () => {
  it('is the share of filled fields over name, description and each data field', () => {
    expect(dataQualityScore({ name: 'Bolt', description: 'Hex', collection_data: { a: 1, b: 'x' } })).toBe(1);
    expect(dataQualityScore({ name: 'Bolt', description: null, collection_data: { a: 1, b: 'x' } })).toBe(0.75);
    expect(dataQualityScore({ name: 'Bolt', description: ' ', collection_data: { a: null, b: '', c: [], d: {}, e: 0, f: false } })).toBe(0.38);
  });

  it('counts data without any field as one empty field', () => {
    expect(dataQualityScore({ name: 'Bolt', description: null, collection_data: {} })).toBe(0.33);
    expect(dataQualityScore({ name: 'Bolt', description: 'Hex', collection_data: {} })).toBe(0.67);
  });
});
