import { isStorableText, replaceUnstorable } from './storable';

describe('storable text', () => {
  it('accepts any text PostgreSQL stores, paired surrogates (emoji) included', () => {
    for (const text of ['', 'plain', 'ünïcødé', 'emoji 😀 here', '\t\n\\']) expect(isStorableText(text)).toBe(true);
  });

  it('refuses NUL characters and unpaired surrogates wherever they sit', () => {
    for (const text of ['a\u0000b', '\u0000', 'cut \uD83D', '\uDE00 alone', 'x\uD83Dy']) expect(isStorableText(text)).toBe(false);
  });

  it('replaces each unstorable character and leaves storable text as it is', () => {
    const mark = (c: string) => (c === '\u0000' ? '' : '\uFFFD');
    expect(replaceUnstorable('a\u0000b \uD83D 😀', mark)).toBe('ab \uFFFD 😀');
    const clean = 'nothing to do 😀';
    expect(replaceUnstorable(clean, mark)).toBe(clean);
  });
});
