import { UnparseableFileError } from './types';
import { parsePdf, pdfParserWithLimits, PDF_LIMITS } from './pdf';
import { byteStream, collect, fixtureBytes, fixtureStream } from '../../test/fixtures/fixtures';
import { buildPdf, layout } from '../../test/fixtures/make-pdfs.js';

const read = (name: string) => collect(parsePdf(fixtureStream(name), { fileName: name }));

describe('parsePdf', () => {
  it('makes one item of a one-page PDF, named by its title, with headings, paragraphs and a numbered list', async () => {
    expect(await read('titled.pdf')).toEqual({
      items: [
        {
          index: 0,
          ok: true,
          data: {
            name: 'Fastener Catalogue 2024',
            title: 'Fastener Catalogue 2024',
            page_count: 1,
            description: [
              '# Hex Bolts',
              '',
              'Hex bolts of stainless steel A2 for general assembly work. All bolts are fully threaded and supplied in ' +
                'boxes of one hundred pieces, with the matching nuts sold separately.',
              '',
              '1. Measure the hole diameter',
              '2. Choose the bolt length',
              '3. Tighten to the listed torque',
            ].join('\n'),
          },
        },
      ],
    });
  });

  it('makes one item of a two-page PDF without a title, named by its first heading, with bullets as list items', async () => {
    expect(await read('guide.pdf')).toEqual({
      items: [
        {
          index: 0,
          ok: true,
          data: {
            name: 'Installation Guide',
            page_count: 2,
            description: [
              '# Installation Guide',
              '',
              'This guide explains how to mount the shelf bracket on a solid wall. Read it completely before you start drilling.',
              '',
              '## Before you start',
              '',
              '- Check the wall for hidden cables',
              '- Mark the drill holes',
              '- Keep the dust away',
              '',
              'The bracket holds up to 40 kg when mounted as described.',
              '',
              '## Maintenance',
              '',
              'Check the screws once a year and tighten them if the shelf has moved.',
              '',
              '- Remove heavy items first',
              '1. Loosen the screw',
              '2. Tighten it again',
            ].join('\n'),
          },
        },
      ],
    });
  });

  it('makes one item per page of a PDF of four or more pages, named by the page heading or the document name and page', async () => {
    const { items, error } = await read('manual-5-pages.pdf');
    expect(error).toBeUndefined();
    expect(items).toEqual([
      { index: 0, ok: true, data: { name: 'Pump Manual', page: 1, page_count: 5, description: '# Pump Manual\n\nModel P-200 circulation pump for heating systems.' } },
      { index: 1, ok: true, data: { name: 'Safety', page: 2, page_count: 5, description: '## Safety\n\nDisconnect the pump from the mains before opening the housing.' } },
      {
        index: 2,
        ok: true,
        data: {
          name: 'Pump Manual (page 3)',
          page: 3,
          page_count: 5,
          description: 'The pump runs at three speeds selected with the front switch. Speed 2 suits most homes.',
        },
      },
      {
        index: 3,
        ok: true,
        data: { name: 'Technical Data', page: 4, page_count: 5, description: '## Technical Data\n\n- Power: 45 W\n- Head: 6 m\n- Weight: 2.1 kg' },
      },
      { index: 4, ok: true, data: { name: 'Pump Manual (page 5)', page: 5, page_count: 5, description: 'Warranty: two years from the date of purchase.' } },
    ]);
  });

  it('drops running headers, footers and page numbers, keeps Courier text as code and joins letter-spaced words', async () => {
    const pages = [1, 2, 3, 4, 5].map((n) => [
      { x: 72, y: 760, size: 9, bold: false, text: 'Pump Manual P-200 \u2013 Installation' },
      ...layout([{ paragraph: [`Text of page ${n} about the pump and its installation.`] }]),
      { x: 290, y: 40, size: 9, bold: false, text: `Page ${n} of 5` },
    ]);
    // Page 1 opens with a heading set with letter spacing; page 2 holds a code sample in Courier.
    pages[0]!.push({ x: 72, y: 740, size: 20, bold: true, text: 'Safety First', spacing: 4 } as (typeof pages)[0][0]);
    const code = ['pump config --speed 2', 'if [ "$HEAD" -gt 6 ]; then', '    pump stop', 'fi'];
    pages[1]!.push(...code.map((text, i) => ({ x: 72, y: 660 - i * 12, size: 10, bold: false, mono: true, text }) as (typeof pages)[0][0]));
    const { items, error } = await collect(parsePdf(byteStream(buildPdf({ pages })), { fileName: 'pump.pdf' }));
    expect(error).toBeUndefined();
    expect(items.map((item) => (item.ok ? item.data.description : item.error))).toEqual([
      '# Safety First\n\nText of page 1 about the pump and its installation.',
      `Text of page 2 about the pump and its installation.\n\n\`\`\`\n${code.join('\n')}\n\`\`\``,
      'Text of page 3 about the pump and its installation.',
      'Text of page 4 about the pump and its installation.',
      'Text of page 5 about the pump and its installation.',
    ]);
    expect(items[0]).toMatchObject({ ok: true, data: { name: 'Safety First' } });
  });

  it('reports a page without text on its own when pages make separate items', async () => {
    const { items, error } = await read('blank-page-4-pages.pdf');
    expect(error).toBeUndefined();
    expect(items.map((item) => (item.ok ? item.data.name : item.error))).toEqual([
      'Inspection Report (page 1)',
      'page 2 holds no text',
      'Inspection Report (page 3)',
      'Findings',
    ]);
    expect(items[1]).toMatchObject({ ok: false, raw: { page: 2, page_count: 4, title: 'Inspection Report' } });
    expect(items[3]).toMatchObject({ ok: true, data: { title: 'Inspection Report', page: 4, description: '# Findings\n\nNo defects.' } });
  });

  it('reads a PDF that arrives in small chunks', async () => {
    const { items } = await collect(parsePdf(byteStream(fixtureBytes('titled.pdf'), 100), {}));
    expect(items).toEqual((await read('titled.pdf')).items);
  });

  it.each([
    ['a password-protected PDF', fixtureBytes('encrypted.pdf'), 'the PDF is password-protected'],
    ['a PDF without any text', fixtureBytes('blank.pdf'), 'the PDF holds no text (scanned pages would need OCR, which is not supported)'],
    ['a file that is not a PDF', Buffer.from('name,price\nbolt,1\n'), 'the file is not a PDF (no %PDF- header)'],
    ['an empty file', Buffer.alloc(0), 'the file is empty, not a PDF'],
    ['a damaged PDF', Buffer.from('%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< >>\n%%EOF\n'), 'the PDF is damaged: Invalid PDF structure'],
    ['a PDF cut off halfway', fixtureBytes('guide.pdf').subarray(0, 400), 'the PDF is damaged'],
  ])('rejects %s as unparseable', async (_case, bytes, message) => {
    const { items, error } = await collect(parsePdf(byteStream(bytes), { fileName: 'upload.pdf' }));
    expect(items).toEqual([]);
    expect(error).toBeInstanceOf(UnparseableFileError);
    expect(error!.message).toContain(message);
  });

  it('gives the event loop a turn for every page, so a long PDF does not hold up the other requests of the process', async () => {
    const pages = Array.from({ length: 40 }, (_, i) => layout([{ heading: `Part ${i + 1}`, size: 16 }, { paragraph: [`Text of page ${i + 1}.`] }]));
    let turns = 0;
    let parsing = true;
    const turn = () => {
      if (!parsing) return;
      turns++;
      setImmediate(turn);
    };
    setImmediate(turn);

    const result = await collect(parsePdf(byteStream(buildPdf({ pages })), { fileName: 'long.pdf' }));
    parsing = false;

    expect(result.items).toHaveLength(40);
    expect(result.items[39]).toMatchObject({ ok: true, data: { name: 'Part 40', page: 40, page_count: 40 } });
    // Two turns a page at least: one after reading its text, one after laying it out.
    expect(turns).toBeGreaterThanOrEqual(80);
  });

  describe('damaged page trees and bounds', () => {
    const page = (text: string) => layout([{ paragraph: [text] }]);
    const rejection = async (bytes: Buffer, parser = parsePdf) => {
      const { items, error } = await collect(parser(byteStream(bytes), { fileName: 'bad.pdf' }));
      expect(items).toEqual([]);
      expect(error).toBeInstanceOf(UnparseableFileError);
      return error!.message;
    };

    it.each([
      ['a /Pages node whose /Kids holds itself', ({ pagesId }: { pagesId: number }) => `<< /Type /Pages /Kids [${pagesId} 0 R] /Count 3 >>`],
      [
        'a /Pages node whose /Kids holds itself beside a page',
        ({ pagesId, pageIds }: { pagesId: number; pageIds: number[] }) => `<< /Type /Pages /Kids [${pagesId} 0 R ${pageIds[0]} 0 R] /Count 2 >>`,
      ],
      [
        'two /Pages nodes holding each other',
        ({ pagesId, add }: { pagesId: number; add: (body: string) => number }) => {
          const other = add(`<< /Type /Pages /Parent ${pagesId} 0 R /Kids [${pagesId} 0 R] /Count 2 >>`);
          return `<< /Type /Pages /Kids [${other} 0 R] /Count 2 >>`;
        },
      ],
    ])('rejects %s as damaged', async (_case, tree) => {
      const bytes = buildPdf({ pages: [page('Looping.')], tree });
      expect(await rejection(bytes)).toMatch(/^the PDF is damaged: .*circular/i);
    });

    it('rejects a PDF of more pages than the limit before reading them', async () => {
      expect(PDF_LIMITS.pages).toBe(2000);
      const bytes = buildPdf({ pages: Array.from({ length: 6 }, (_, i) => page(`Page ${i + 1}.`)) });
      expect(await rejection(bytes, pdfParserWithLimits({ pages: 5 }))).toBe('the PDF has 6 pages; at most 5 can be read');
      expect((await collect(pdfParserWithLimits({ pages: 6 })(byteStream(bytes), {}))).items).toHaveLength(6);
    });

    it('rejects a page or a document holding more text than the limits', async () => {
      const lines = Array.from({ length: 30 }, (_, i) => `Line ${i + 1} of the page.`);
      const bytes = buildPdf({ pages: [layout([{ paragraph: lines }]), layout([{ paragraph: lines }])] });
      expect(await rejection(bytes, pdfParserWithLimits({ runsPerPage: 20 }))).toBe('page 1 of the PDF holds more than 20 pieces of text');
      expect(await rejection(bytes, pdfParserWithLimits({ runs: 50 }))).toBe('the PDF holds more than 50 pieces of text');
      expect(await rejection(bytes, pdfParserWithLimits({ characters: 1000 }))).toBe('the PDF holds more than 1000 characters of text');
    });

    it('rejects a PDF that takes longer than the time limit', async () => {
      const pages = Array.from({ length: 30 }, (_, i) => page(`Page ${i + 1}.`));
      expect(await rejection(buildPdf({ pages }), pdfParserWithLimits({ timeoutMs: 1 }))).toBe('the PDF takes longer than 0.001 s to read');
    });
  });
});
