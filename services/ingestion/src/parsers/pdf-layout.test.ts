import { layoutDocument, type TextRun } from './pdf-layout';

/** Runs of one page from lines given top down: [text, x, y, size], width estimated at half the size per character. */
function page(...runs: [string, number, number, number][]): TextRun[] {
  return runs.map(([text, x, y, size]) => ({ text, x, y, size, width: text.length * size * 0.5 }));
}

const markdown = async (...pages: TextRun[][]) => (await layoutDocument(pages)).map((p) => p.markdown);

describe('layoutDocument', () => {
  it('joins runs on one baseline in reading order, with a space only where there is a gap', async () => {
    const runs = page(['world', 100, 700, 10], ['Hello', 50, 700.8, 10], ['Kern', 50, 680, 10], ['ing', 70, 680, 10]);
    expect(await markdown(runs)).toEqual(['Hello world Kerning']);
  });

  it('splits paragraphs at gaps wider than the usual line step and joins words hyphenated across lines', async () => {
    const runs = page(
      ['A first para-', 50, 700, 10],
      ['graph goes on here.', 50, 688, 10],
      ['Still the first.', 50, 676, 10],
      ['A second one.', 50, 650, 10],
      ['Its end.', 50, 638, 10],
    );
    expect(await markdown(runs)).toEqual(['A first paragraph goes on here. Still the first.\n\nA second one. Its end.']);
  });

  it('measures the usual line step over the document, so widely spaced text stays in paragraphs', async () => {
    const runs = page(['One line', 50, 700, 10], ['and the next,', 50, 682, 10], ['double spaced.', 50, 664, 10], ['New paragraph.', 50, 630, 10]);
    expect(await markdown(runs)).toEqual(['One line and the next, double spaced.\n\nNew paragraph.']);
  });

  it('ranks heading sizes: the largest is #, the next ##, smaller ones ###, and a heading over two lines stays one', async () => {
    const runs = page(
      ['Big Title', 50, 760, 24],
      ['Section', 50, 720, 16],
      ['Sub', 50, 690, 13],
      ['Body text of the section that is long enough to be the body size.', 50, 670, 10],
      ['A long section heading', 50, 640, 16],
      ['over two lines', 50, 622, 16],
      ['More body text of ordinary size, again long enough.', 50, 600, 10],
    );
    expect(await markdown(runs)).toEqual([
      '# Big Title\n\n## Section\n\n### Sub\n\nBody text of the section that is long enough to be the body size.\n\n' +
        '## A long section heading over two lines\n\nMore body text of ordinary size, again long enough.',
    ]);
  });

  it('makes list items of bulleted and numbered lines and continues an item on an indented line', async () => {
    const runs = page(
      ['Intro line of text.', 50, 700, 10],
      ['•', 50, 688, 10],
      ['First item that wraps', 62, 688, 10],
      ['onto a second line', 62, 676, 10],
      ['– Second item', 50, 664, 10],
      ['2) Numbered', 50, 652, 10],
      ['-5 °C is not a bullet', 50, 640, 10],
    );
    expect(await markdown(runs)).toEqual([
      'Intro line of text.\n\n- First item that wraps onto a second line\n- Second item\n2. Numbered\n\n-5 °C is not a bullet',
    ]);
  });

  it('reports the first heading and first line of each page, and nothing for an empty page', async () => {
    const pages = await layoutDocument([
      page(['Opening words', 50, 700, 10], ['Heading', 50, 680, 14], ['Body', 50, 660, 10]),
      [],
    ]);
    expect(pages).toEqual([
      { markdown: 'Opening words\n\n# Heading\n\nBody', firstHeading: 'Heading', firstLine: 'Opening words' },
      { markdown: '' },
    ]);
  });

  it('drops a running header and footer repeated at one height on most pages, and page numbers', async () => {
    const pages = [1, 2, 3, 4, 5].map((n) =>
      page(
        ['Pump Manual P-200', 50, 760, 9],
        [`Body text of page ${n}, long enough to be the body size.`, 50, 700, 10],
        ...(n === 2 ? [['Only on page 2', 50, 60, 10] as [string, number, number, number]] : []),
        [`Page ${n} of 5`, 280, 40, 9],
      ),
    );
    // A line at the top of two pages of five is not running.
    pages[3]!.push(...page(['Revision B', 50, 780, 9]));
    pages[4]!.push(...page(['Revision B', 50, 780, 9]));
    expect(await markdown(...pages)).toEqual([
      'Body text of page 1, long enough to be the body size.',
      'Body text of page 2, long enough to be the body size.\n\nOnly on page 2',
      'Body text of page 3, long enough to be the body size.',
      'Revision B\n\nBody text of page 4, long enough to be the body size.',
      'Revision B\n\nBody text of page 5, long enough to be the body size.',
    ]);
  });

  it("drops a page's own number alone at its top or bottom, and keeps other numbers", async () => {
    const pages = [
      page(['Intro text on the first page.', 50, 700, 10], ['1', 300, 40, 10]),
      page(['- 2 -', 300, 760, 10], ['Total', 50, 700, 10], ['42', 50, 688, 10]),
    ];
    expect(await markdown(...pages)).toEqual(['Intro text on the first page.', 'Total 42']);
  });

  it('keeps lines of a monospaced font as a fenced code block with their indentation and spacing', async () => {
    const mono = (text: string, x: number, y: number): TextRun => ({ text, x, y, size: 10, width: text.length * 6, mono: true });
    const runs = [
      ...page(['An example follows:', 50, 700, 10]),
      mono('function add(a, b) {', 50, 686),
      mono('return a  + b;', 74, 674),
      mono('}', 50, 662),
      mono('- not a list item', 50, 638),
      ...page(['Prose again, as a paragraph.', 50, 610, 10]),
    ];
    expect(await markdown(runs)).toEqual([
      'An example follows:\n\n```\nfunction add(a, b) {\n    return a  + b;\n}\n\n- not a list item\n```\n\nProse again, as a paragraph.',
    ]);
  });

  it('joins letter-spaced text into words', async () => {
    // pdf.js spaces the letters of a word set with letter spacing, and gives the word space as a run of its own.
    const tracked = page(['S H E', 50, 700, 10], [' ', 80, 700, 10], ['S E L L S', 92, 700, 10]);
    // A writer placing each letter on its own, 3 units apart within a word and 9 between words.
    const letters = [...'sea', ' ', ...'shells'].reduce<TextRun[]>((runs, char) => {
      const last = runs[runs.length - 1];
      const x = last ? last.x + last.width + (char === ' ' || last.text === ' ' ? 4.5 : 3) : 50;
      return [...runs, { text: char, x, y: 680, size: 10, width: char === ' ' ? 0 : 5 }];
    }, []);
    expect(await markdown([...tracked, ...letters])).toEqual(['SHE SELLS sea shells']);
  });

  it('keeps single letters apart that are not letter-spaced words: table columns, digits, a short run', async () => {
    const runs = page(['A', 50, 700, 10], ['B', 150, 700, 10], ['C', 250, 700, 10], ['1 2 3', 50, 680, 10], ['a b', 50, 660, 10]);
    expect(await markdown(runs)).toEqual(['A B C 1 2 3 a b']);
  });

  it('lays out a line of 200,000 runs on one baseline (one glyph each, as some writers place them)', async () => {
    const runs = Array.from({ length: 200_000 }, (_, i) => ({ text: 'a', x: i * 5, y: 700, size: 10, width: 5 }));
    const [text] = await markdown(runs);
    expect(text).toBe('a'.repeat(200_000));
  });
});
