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

  it('lays out a line of 200,000 runs on one baseline (one glyph each, as some writers place them)', async () => {
    const runs = Array.from({ length: 200_000 }, (_, i) => ({ text: 'a', x: i * 5, y: 700, size: 10, width: 5 }));
    const [text] = await markdown(runs);
    expect(text).toBe('a'.repeat(200_000));
  });
});
