import { castScalar } from './values';

describe('castScalar', () => {
  it('turns plain integers and decimals into numbers', () => {
    expect(['12', '-3.5', '0.12', '0', '1500', '99999999999'].map((v) => castScalar(v))).toEqual([
      12, -3.5, 0.12, 0, 1500, 99999999999,
    ]);
  });

  it('turns true and false in any case into booleans', () => {
    expect(['true', 'FALSE', 'True', 'fAlSe'].map((v) => castScalar(v))).toEqual([true, false, true, false]);
  });

  it('keeps identifiers made of digits as strings: leading zeros, 12 or more digits, over 15 significant digits', () => {
    const identifiers = ['0042', '007', '-01', '4006381333931', '012345678905', '10000000000000', '1.23456789012345678'];
    expect(identifiers.map((v) => castScalar(v))).toEqual(identifiers);
  });

  it('keeps other number spellings as strings', () => {
    const texts = ['1e5', '+5', '.5', '5.', '1,000', '1 000', '12,5', '0x1F', 'NaN', 'Infinity', 'yes', ''];
    expect(texts.map((v) => castScalar(v))).toEqual(texts);
  });
});
