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
 * What reading one PDF may cost. Every page's text is held until the document is laid out (body size and headings
 * are measured over all pages), so text is bounded per page and for the whole document; a page's text is read in
 * pieces and reading stops as soon as a bound is crossed. Crossing any bound makes the file unparseable (422).
 */
export interface PdfLimits {
  /** Pages of the document. */
  pages: number;
  /** Pieces of text (pdf.js text items) on one page; a dense page of prose has a few hundred. */
  runsPerPage: number;
  /** Pieces of text in the whole document (about 100 bytes of memory each). */
  runs: number;
  /** Characters of text in the whole document. */
  characters: number;
  /** Time to read the whole document, in milliseconds. */
  timeoutMs: number;
}

export const PDF_LIMITS: PdfLimits = {
  pages: 2000,
  runsPerPage: 50_000,
  runs: 1_000_000,
  characters: 20_000_000,
  timeoutMs: 120_000,
};

/**
 * A PDF's text as markdown (layout rules in pdf-layout.ts), read with pdf.js from the whole file in memory.
 *
 * - 1 to 3 pages: one item for the document, data {name, description, page_count, title?}.
 * - 4 or more pages: one item per page, data {name, description, page, page_count, title?}; a page without text is
 *   {ok: false}.
 * - name: the document title (Info Title, else XMP dc:title), else its first heading, else its first line, else the
 *   file name without extension. A page's item is named by the page's own first heading, else "<name> (page N)".
 *   `title` is present when the document has one.
 * - UnparseableFileError: not a PDF, a damaged PDF (a page tree that loops back on itself included), a
 *   password-protected PDF, a file over 50 MB, a document with no text at all (scanned pages would need OCR), one
 *   beyond PDF_LIMITS (pages, text, time), and anything else pdf.js throws while reading it.
 */
export const parsePdf: Parser = (input, opts) => pdfItems(input, opts, PDF_LIMITS);

/** parsePdf with other limits, so tests need not build huge PDFs or wait minutes to reach them. */
export function pdfParserWithLimits(limits: Partial<PdfLimits>): Parser {
  return (input, opts) => pdfItems(input, opts, { ...PDF_LIMITS, ...limits });
}

async function* pdfItems(input: AsyncIterable<Buffer | string>, opts: ParseOptions, limits: PdfLimits): AsyncGenerator<ParsedItem> {
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
  const clock = new Deadline(limits.timeoutMs);
  try {
    const document = await clock.race(task.promise).catch((error: unknown) => {
      throw openError(error);
    });
    if (document.numPages > limits.pages) {
      throw new UnparseableFileError(`the PDF has ${document.numPages} pages; at most ${limits.pages} can be read`);
    }
    const title = await clock.race(documentTitle(document));
    const budget = { runs: limits.runs, characters: limits.characters };
    const pages: TextRun[][] = [];
    for (let n = 1; n <= document.numPages; n++) {
      pages.push(await clock.race(pageRuns(document, n, limits, budget)));
      // pdf.js parses on this thread; without a turn of the event loop between pages, a long PDF kept every service of
      // the process from answering until the whole file was read.
      await nextTurn();
    }
    yield* toItems(await clock.race(layoutDocument(pages, nextTurn)), title, opts.fileName);
  } catch (error) {
    // pdf.js reports a damaged file in many ways (a page tree that contains itself is an UnknownErrorException); none
    // of them is the server's fault.
    if (error instanceof UnparseableFileError) throw error;
    throw new UnparseableFileError(`the PDF is damaged: ${errorMessage(error).replace(/\.$/, '')}`);
  } finally {
    clock.stop();
    await task.destroy();
  }
}

/** The text runs of page `n`, read in pieces so that a page or document over its text bounds stops early. */
async function pageRuns(document: PdfDocument, n: number, limits: PdfLimits, budget: { runs: number; characters: number }): Promise<TextRun[]> {
  const page = await document.getPage(n);
  const reader = page.streamTextContent().getReader();
  const runs: TextRun[] = [];
  // pdf.js names each font of the page once, in the piece of text that first uses it.
  const monoFonts = new Map<string, boolean>();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const content = value as TextContent;
      // pdf.js gives a font the family `monospace` when every glyph of it has one width (Courier, the *Mono faces), by
      // its width table or, for the standard fonts, their metrics. The font's own name is not passed on (fontName is
      // pdf.js's id for it).
      for (const [fontName, style] of Object.entries(content.styles)) monoFonts.set(fontName, style.fontFamily === 'monospace');
      for (const item of content.items) {
        if (!('str' in item)) continue;
        runs.push({
          text: item.str,
          x: item.transform[4],
          y: item.transform[5],
          width: item.width,
          size: Math.hypot(item.transform[2], item.transform[3]),
          ...(monoFonts.get(item.fontName) ? { mono: true } : {}),
        });
        budget.characters -= item.str.length;
      }
      budget.runs -= value.items.length;
      if (runs.length > limits.runsPerPage) {
        throw new UnparseableFileError(`page ${n} of the PDF holds more than ${limits.runsPerPage} pieces of text`);
      }
      if (budget.runs < 0) throw new UnparseableFileError(`the PDF holds more than ${limits.runs} pieces of text`);
      if (budget.characters < 0) throw new UnparseableFileError(`the PDF holds more than ${limits.characters} characters of text`);
    }
  } finally {
    reader.releaseLock();
    page.cleanup();
  }
  return runs;
}

/** One timer for a whole document: each wait on pdf.js loses the race once the time is up. */
class Deadline {
  private timer: NodeJS.Timeout | undefined;
  private readonly expired: Promise<never>;

  constructor(ms: number) {
    this.expired = new Promise<never>((_, reject) => {
      this.timer = setTimeout(() => reject(new UnparseableFileError(`the PDF takes longer than ${ms / 1000} s to read`)), ms);
    });
    // Rejected only while a race is waiting on it, or after the document is done: never unhandled.
    this.expired.catch(() => undefined);
  }

  race<T>(work: Promise<T>): Promise<T> {
    return Promise.race([work, this.expired]);
  }

  stop(): void {
    clearTimeout(this.timer);
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
type TextContent = Awaited<ReturnType<Awaited<ReturnType<PdfDocument['getPage']>>['getTextContent']>>;

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
