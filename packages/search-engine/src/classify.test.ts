import { classifyQuery } from './classify';

describe('classifyQuery', () => {
  it('classifies a whole identifier as identifier with its normalised forms', () => {
    expect(classifyQuery('DIN 933')).toEqual({ type: 'identifier', identifiers: ['DIN933'] });
    expect(classifyQuery('4006381333931')).toEqual({ type: 'identifier', identifiers: ['04006381333931'] });
    expect(classifyQuery('sku-1234')).toEqual({ type: 'identifier', identifiers: ['SKU1234'] });
  });

  it('classifies short content-word queries as keyword', () => {
    expect(classifyQuery('hex bolt')).toEqual({ type: 'keyword', identifiers: [] });
    expect(classifyQuery('stainless steel M8')).toEqual({ type: 'keyword', identifiers: [] });
    expect(classifyQuery('bolt').type).toBe('keyword');
  });

  it('classifies sentences as natural_language', () => {
    expect(classifyQuery('bolts for outdoor use').type).toBe('natural_language');
    expect(classifyQuery('which screws fit wood').type).toBe('natural_language');
    expect(classifyQuery('hex bolt stainless steel M8').type).toBe('natural_language');
    expect(classifyQuery('galvanised?').type).toBe('natural_language');
    expect(classifyQuery('nuts and bolts').type).toBe('natural_language');
    expect(classifyQuery('Schrauben für Holz').type).toBe('natural_language');
  });
});
