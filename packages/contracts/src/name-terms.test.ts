import { nameTerms } from './name-terms';

describe('name terms', () => {
  it('splits on anything but letters and digits and lower-cases', () => {
    expect(nameTerms('M8x20 Hex-Bolt, DIN/933 Müller')).toEqual(['m8x20', 'hex', 'bolt', 'din', '933', 'müller']);
  });
});
