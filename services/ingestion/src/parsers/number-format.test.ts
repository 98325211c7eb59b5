import { numberReader, readNumber, separatorShownBy } from './number-format';

const readColumn = (values: string[]) => {
  const read = numberReader(values.map((value) => [value]), 1);
  return values.map((value) => read(value, 0));
};

describe('separatorShownBy', () => {
  it('names the decimal separator a number can only have been written with', () => {
    expect(['0,5', '-12,50', '1234,567', '0,500', '1.234,56', '1.234.567', '-1.234.567,8'].map(separatorShownBy)).toEqual(
      Array(7).fill(','),
    );
    expect(['0.5', '-12.50', '1234.567', '0.500', '1,234.56', '1,234,567'].map(separatorShownBy)).toEqual(Array(6).fill('.'));
  });

  it('names none for a number that reads two ways, a whole number or text', () => {
    expect(['2.500', '1,234', '-999.000', '12', 'abc', '1.2.3', '1,23,456', '01.02.2024', ''].map(separatorShownBy)).toEqual(
      Array(9).fill(undefined),
    );
  });
});

describe('readNumber', () => {
  it('reads a decimal comma with dots grouping thousands', () => {
    expect(['2.500', '1.234,56', '0,5', '-0,08', '1.234.567', '12', 'true'].map((v) => readNumber(v, ','))).toEqual([
      2500, 1234.56, 0.5, -0.08, 1234567, 12, true,
    ]);
  });

  it('reads a decimal point with commas grouping thousands', () => {
    expect(['2.500', '1,234.56', '0.5', '1,234', '1,234,567'].map((v) => readNumber(v, '.'))).toEqual([2.5, 1234.56, 0.5, 1234, 1234567]);
  });

  it('keeps text that does not fit the separator, and identifiers', () => {
    const texts = ['1.5', '2.50', '1,234,5', '12.34.5', '0042,5', '0042', '1.2345', '1,234.567.8'];
    expect(texts.map((v) => readNumber(v, ','))).toEqual(texts);
    expect(['1,5', '12,34', '0042.5', '1.234,5'].map((v) => readNumber(v, '.'))).toEqual(['1,5', '12,34', '0042.5', '1.234,5']);
  });
});

describe('numberReader', () => {
  it('reads a column with 1.234,56 and 2.500 with a decimal comma and thousands dots', () => {
    expect(readColumn(['1.234,56', '2.500', '7'])).toEqual([1234.56, 2500, 7]);
  });

  it('reads a column with 0.125 and 2.500 with a decimal point', () => {
    expect(readColumn(['0.125', '2.500', '1,500'])).toEqual([0.125, 2.5, 1500]);
  });

  it('keeps a number that reads two ways as text when nothing in the file decides it', () => {
    expect(readColumn(['2.500', '1,234', '12'])).toEqual(['2.500', '1,234', 12]);
  });

  it('reads a column without a telling number as the rest of the file does', () => {
    const read = numberReader([['0,5', '2.500'], ['1,25', '3.000']], 2);
    expect([read('2.500', 1), read('3.000', 1), read('0,75', 0)]).toEqual([2500, 3000, 0.75]);
  });

  it('reads numbers on their own when the file shows both separators', () => {
    const read = numberReader([['0,5', '2.500', '1.5']], 3);
    expect([read('0,5', 0), read('2.500', 1), read('1.5', 2), read('0,25', 1)]).toEqual([0.5, '2.500', 1.5, 0.25]);
  });

  it('reads each number on its own in a column that shows both separators', () => {
    expect(readColumn(['0,5', '1.5', '2.500', '1.234,5'])).toEqual([0.5, 1.5, '2.500', 1234.5]);
  });

  it('keeps the decimal comma of a column decided from the sample for numbers after it', () => {
    const read = numberReader([['1,5']], 1);
    expect(['1.5', '2.500', '0,25'].map((v) => read(v, 0))).toEqual(['1.5', 2500, 0.25]);
  });
});
