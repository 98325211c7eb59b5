import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { layoutDocument, type PageText, type TextRun } from './pdf-layout';
import { UnparseableFileError, type ParsedItem, type ParseOptions, type Parser } from './types';
import { errorMessage, truncate } from './values';

type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs', { with: { 'resolution-mode': 'import' } });

/** pdf.js needs the whole file; the upload route stops at 50 MB, and this guards the parser on its own. */
export const MAX_PDF_BYTES = 50 * 1024 * 1024;
/** Up to this many pages a PDF is one record; longer documents make one record per page. */
export const WHOLE_DOCUMENT_PAGES = 3;
const NAME_LIMIT = 200;

/**
 * A PDF's text as markdown (layout rules in pdf-layout.ts), read with pdf.js from the whole file in memory.
 *
 * - 1 to 3 pages: one item for the document, data {name, description, page_count, title?}.
 * - 4 or more pages: one item per page, data {name, description, page, page_count, title?}; a page without text is
 *   {ok: false}.
 * - name: the document title (Info Title, else XMP dc:title), else its first heading, else its first line, else the
 *   file name without extension. A page's item is named by the page's own first heading, else "<name> (page N)".
 *   `title` is present when the document has one.
 * - UnparseableFileError: not a PDF, a damaged PDF, a password-protected PDF, a file over 50 MB, or a document with
 *   no text at all (scanned pages would need OCR).
 */
export const parsePdf: Parser = (input, opts) => pdfItems(input, opts);

async function* pdfItems(input: AsyncIterable<Buffer | string>, opts: ParseOptions): AsyncGenerator<ParsedItem> {
  const bytes = await readAll(input);
  if (!bytes.subarray(0, 1024).includes('%PDF-')) {
    throw new UnparseableFileError('the file is not a PDF (no %PDF- header)');
  }
  const pdfjs = await loadPdfJs();
  const task = pdfjs.getDocument({
    data: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength),
    useSystemFonts: false,
    isEvalSupported: false,
    disableFontFace: true,
    verbosity: pdfjs.VerbosityLevel.ERRORS,
  });
  try {
    const document = await task.promise.catch((error: unknown) => {
      throw openError(error);
    });
    const title = await documentTitle(document);
    const pages: TextRun[][] = [];
    for (let n = 1; n <= document.numPages; n++) {
      const page = await document.getPage(n);
      const content = await page.getTextContent();
      pages.push(
        content.items.flatMap((item) =>
          'str' in item
            ? [{ text: item.str, x: item.transform[4], y: item.transform[5], width: item.width, size: Math.hypot(item.transform[2], item.transform[3]) }]
            : [],
        ),
      );
      page.cleanup();
      // pdf.js parses on this thread, a few milliseconds a page; without a turn of the event loop between pages, a
      // 1,000-page PDF kept every service of the process from answering for 2.5 s (and a 50 MB one for far longer).
      await nextTurn();
    }
    yield* toItems(await layoutDocument(pages, nextTurn), title, opts.fileName);
  } finally {
    await task.destroy();
  }
}

/** Resolves after the event loop has handled what was waiting (I/O, timers). */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

function* toItems(
  pages: PageText[],
  title: string | undefined,
  fileName: string | undefined,
): Generator<ParsedItem> {
  if (pages.every((page) => page.markdown === '')) {
    throw new UnparseableFileError('the PDF holds no text (scanned pages would need OCR, which is not supported)');
  }
  const name = limit(
    title ??
      pages.find((p) => p.firstHeading)?.firstHeading ??
      pages.find((p) => p.firstLine)?.firstLine ??
      fileName?.replace(/\.[^./\\]*$/, '') ??
      'Untitled PDF',
  );
  const common = { page_count: pages.length, ...(title ? { title } : {}) };
  if (pages.length <= WHOLE_DOCUMENT_PAGES) {
    const description = pages.map((p) => p.markdown).filter((m) => m !== '').join('\n\n');
    yield { index: 0, ok: true, data: { name, description, ...common } };
    return;
  }
  let index = 0;
  for (const [i, page] of pages.entries()) {
    const number = i + 1;
    if (page.markdown === '') {
      yield { index: index++, ok: false, error: `page ${number} holds no text`, raw: { page: number, ...common } };
      continue;
    }
    const pageName = page.firstHeading ? limit(page.firstHeading) : `${name} (page ${number})`;
    yield { index: index++, ok: true, data: { name: pageName, description: page.markdown, page: number, ...common } };
  }
}

async function readAll(input: AsyncIterable<Buffer | string>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of input) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += buffer.length;
    if (size > MAX_PDF_BYTES) throw new UnparseableFileError('the PDF is larger than 50 MB');
    chunks.push(buffer);
  }
  if (size === 0) throw new UnparseableFileError('the file is empty, not a PDF');
  return Buffer.concat(chunks, size);
}

type PdfDocument = Awaited<ReturnType<PdfJs['getDocument']>['promise']>;

async function documentTitle(document: PdfDocument): Promise<string | undefined> {
  const { info, metadata } = await document.getMetadata();
  const fromInfo = (info as { Title?: unknown } | undefined)?.Title;
  const title = typeof fromInfo === 'string' && fromInfo.trim() !== '' ? fromInfo : metadata?.get('dc:title');
  const trimmed = typeof title === 'string' ? title.replace(/\s+/g, ' ').trim() : '';
  return trimmed === '' ? undefined : limit(trimmed);
}

function openError(error: unknown): Error {
  const name = error instanceof Error ? error.name : '';
  if (name === 'PasswordException') return new UnparseableFileError('the PDF is password-protected');
  if (name === 'InvalidPDFException') return new UnparseableFileError(`the PDF is damaged: ${errorMessage(error)}`);
  return new UnparseableFileError(`the PDF cannot be read: ${errorMessage(error)}`);
}

function limit(name: string): string {
  return truncate(name, NAME_LIMIT);
}

let pdfjsModule: Promise<PdfJs> | undefined;

/**
 * pdf.js is an ES module only. tsc keeps `import()` in CommonJS output, but the jest transform (swc) turns it into
 * `require()`, which cannot load one; an import() inside a Function body is left alone by both.
 *
 * The Function's source is unique to this module instance: V8 reuses the compilation of an identical source, and
 * Node 20 then resolves its import() with the loader of the context that compiled it first. Under jest, each test file
 * is such a context, so a second test file loading pdf.js went through the first one's loader, torn down by then.
 */
function loadPdfJs(): Promise<PdfJs> {
  pdfjsModule ??= (async () => {
    const importModule = new Function('specifier', `return import(specifier); // ${randomUUID()}`) as (specifier: string) => Promise<unknown>;
    const url = (path: string) => pathToFileURL(require.resolve(path)).href;
    const pdfjs = (await importModule(url('pdfjs-dist/legacy/build/pdf.mjs'))) as PdfJs;
    // In Node pdf.js runs its worker on the main thread, loading this module; a path relative to pdf.mjs would depend
    // on how pdf.mjs itself was resolved.
    pdfjs.GlobalWorkerOptions.workerSrc = url('pdfjs-dist/legacy/build/pdf.worker.mjs');
    return pdfjs;
  })();
  // A failed load is not remembered, so the next upload tries again.
  pdfjsModule.catch(() => {
    pdfjsModule = undefined;
  });
  return pdfjsModule;
}
