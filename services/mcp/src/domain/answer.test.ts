import { ANSWER_LIMIT, capAnswer } from './answer';

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');

describe('capAnswer', () => {
  it('leaves an answer within the limit as it is', () => {
    const text = 'a\n'.repeat(ANSWER_LIMIT / 2);
    expect(capAnswer(text, 'Narrow it.')).toBe(text);
  });

  it('cuts a longer answer at a line break and says how much was left out and how to narrow', () => {
    const text = Array.from({ length: 10_000 }, (_, i) => `| row ${i} |`).join('\n');
    const cut = capAnswer(text, 'Narrow with filters.');
    expect(bytes(cut)).toBeLessThanOrEqual(ANSWER_LIMIT);
    const [head, note] = cut.split('\n\n');
    expect(text.startsWith(`${head}\n`)).toBe(true);
    const left = text.slice(head!.length + 1).split('\n').length;
    expect(note).toBe(`… Answer cut at 64 KB: ${left} more lines (${text.length - head!.length} characters) left out. Narrow with filters.`);
  });

  it('counts bytes, not characters, and never splits a character', () => {
    const text = '€'.repeat(40_000);
    const cut = capAnswer(text, 'Narrow it.');
    expect(bytes(cut)).toBeLessThanOrEqual(ANSWER_LIMIT);
    expect(cut).toMatch(/^€+\n\n… Answer cut at 64 KB: 1 more line \(\d+ characters\) left out\. Narrow it\.$/);
  });
});
