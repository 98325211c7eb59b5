import { detectIdentifier, identifiersOf, normaliseIdentifier } from './identifiers';

const doc = (name: string, collection_data: Record<string, unknown> = {}) => ({ name, collection_data });

describe('normaliseIdentifier', () => {
  it('uppercases and strips whitespace and separators', () => {
    expect(normaliseIdentifier(' ab-12/3.4_5:6 ')).toBe('AB123456');
    expect(normaliseIdentifier('din 933')).toBe('DIN933');
  });

  it('gives UPC-A, EAN-13 and GTIN-14 of one product the same 14-digit form', () => {
    expect(normaliseIdentifier('036000291452')).toBe('00036000291452');
    expect(normaliseIdentifier('0036000291452')).toBe('00036000291452');
    expect(normaliseIdentifier('00036000291452')).toBe('00036000291452');
    expect(normaliseIdentifier('96385074')).toBe('00000096385074');
  });

  it('leaves digits with a wrong check digit as they are', () => {
    expect(normaliseIdentifier('4006381333932')).toBe('4006381333932');
  });
});

describe('detectIdentifier', () => {
  it('detects GTINs with a valid check digit, also grouped by spaces', () => {
    expect(detectIdentifier('4006381333931')).toEqual(['04006381333931']);
    expect(detectIdentifier(' 4 006381 333931 ')).toEqual(['04006381333931']);
    expect(detectIdentifier('036000291452')).toEqual(['00036000291452']);
    expect(detectIdentifier('96385074')).toEqual(['00000096385074']);
  });

  it('ignores digit strings that are not valid GTINs', () => {
    expect(detectIdentifier('4006381333932')).toBeUndefined();
    expect(detectIdentifier('2015')).toBeUndefined();
    expect(detectIdentifier('12345')).toBeUndefined();
    expect(detectIdentifier('2024-01-15')).toBeUndefined();
  });

  it('detects standards whatever the spacing and case', () => {
    expect(detectIdentifier('DIN 933')).toEqual(['DIN933']);
    expect(detectIdentifier('din933')).toEqual(['DIN933']);
    expect(detectIdentifier('DIN-933')).toEqual(['DIN933']);
    expect(detectIdentifier('ISO 4017')).toEqual(['ISO4017']);
    expect(detectIdentifier('ISO 9001:2015')).toEqual(['ISO90012015']);
    expect(detectIdentifier('ASTM A193')).toEqual(['ASTMA193']);
  });

  it('asks for the adopted standard too when bodies are chained', () => {
    expect(detectIdentifier('DIN EN ISO 4762')).toEqual(['DINENISO4762', 'ISO4762']);
    expect(detectIdentifier('ISO/IEC 27001')).toEqual(['ISOIEC27001', 'IEC27001']);
  });

  it('detects part numbers and SKUs holding a letter and a digit', () => {
    expect(detectIdentifier('SKU-12345')).toEqual(['SKU12345']);
    expect(detectIdentifier('ab/12.c4')).toEqual(['AB12C4']);
    expect(detectIdentifier('M8x40')).toEqual(['M8X40']);
  });

  it('rejects words, measurements, short tokens and sentences', () => {
    expect(detectIdentifier('bolt')).toBeUndefined();
    expect(detectIdentifier('A2')).toBeUndefined();
    expect(detectIdentifier('100mm')).toBeUndefined();
    expect(detectIdentifier('2.5kg')).toBeUndefined();
    expect(detectIdentifier('hex bolt M8')).toBeUndefined();
    expect(detectIdentifier('')).toBeUndefined();
    expect(detectIdentifier('x'.repeat(39) + '1' + 'y')).toBeUndefined();
  });

  it('agrees with normaliseIdentifier on the first form', () => {
    for (const q of ['DIN 933', 'ISO 9001:2015', 'SKU-12345', '036000291452']) {
      expect(detectIdentifier(q)?.[0]).toBe(normaliseIdentifier(q));
    }
  });
});

describe('identifiersOf', () => {
  it('finds standards, SKUs and GTINs in the name', () => {
    expect(identifiersOf(doc('Hex bolt DIN 933 M8x40, EAN 4006381333931'))).toEqual(
      expect.arrayContaining(['DIN933', 'M8X40', '04006381333931']),
    );
  });

  it('indexes a standard with a year or part under its base too', () => {
    expect(identifiersOf(doc('Certified ISO 9001:2015'))).toEqual(expect.arrayContaining(['ISO90012015', 'ISO9001']));
    expect(identifiersOf(doc('Socket screw DIN EN ISO 4762'))).toEqual(
      expect.arrayContaining(['DINENISO4762', 'ISO4762']),
    );
  });

  it('reads collection_data strings and numbers, nested one level and more', () => {
    const ids = identifiersOf(
      doc('Thing', {
        ean: 4006381333931,
        upc: 36000291452,
        sku: 'ab-1234',
        price: 12.5,
        year: 2015,
        codes: ['XY-99-Z'],
        meta: { norm: 'iso 4017' },
        ok: true,
      }),
    );
    expect(ids).toEqual(expect.arrayContaining(['04006381333931', '00036000291452', 'AB1234', 'XY99Z', 'ISO4017']));
    expect(ids).not.toContain('2015');
  });

  it('finds standards in free text in any case, Unicode case folding included, and nothing in text without digits', () => {
    const ids = identifiersOf(doc('Steel rod', { note: 'nach aiſi 304, dazu din-933 und Iso 4017', material: 'stainless steel', brand: 'ISO Parts' }));
    expect(ids).toEqual(['AISI304', 'DIN933', 'ISO4017']);
  });

  it('deduplicates and caps the list', () => {
    const many = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`k${i}`, `SKU-${i}A`]));
    const ids = identifiersOf(doc('SKU-1A sku-1a', many));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBe(100);
  });
});
