import { UnparseableFileError } from './types';

// Enough bytes to see a byte order mark, an XML declaration, and whether the file is text at all; text starts to
// flow once they have arrived or the stream has ended.
export const SNIFF_BYTES = 64 * 1024;

export interface DecodeOptions {
  /** The format the file should have, for messages ("the file is binary, not CSV"). */
  kind: string;
  /** Reads an encoding the file declares about itself (the XML declaration) from its first bytes. */
  declaredEncoding?: (head: Buffer) => string | undefined;
}

/**
 * Decodes an upload into text chunks as it streams. A byte order mark decides the encoding (UTF-8, UTF-16) and is
 * dropped; otherwise a declared encoding (XML) wins; otherwise UTF-8, unless the first bytes are not valid UTF-8, which
 * is how spreadsheet exports in Windows-1252 show themselves. A NUL byte among the first bytes of a file without a
 * UTF-16 mark means a binary file: UnparseableFileError.
 */
export async function* decodeText(input: AsyncIterable<Buffer | string>, options: DecodeOptions): AsyncGenerator<string> {
  const iterator = input[Symbol.asyncIterator]();
  try {
    yield* decodeFrom(iterator, options);
  } finally {
    // Stopping early (a fatal error, a consumer that breaks off) releases the upload stream.
    await iterator.return?.();
  }
}

async function* decodeFrom(iterator: AsyncIterator<Buffer | string>, options: DecodeOptions): AsyncGenerator<string> {
  const headChunks: Buffer[] = [];
  let headLength = 0;
  let ended = false;
  while (headLength < SNIFF_BYTES) {
    const next = await iterator.next();
    if (next.done) {
      ended = true;
      break;
    }
    const chunk = typeof next.value === 'string' ? Buffer.from(next.value, 'utf8') : next.value;
    headChunks.push(chunk);
    headLength += chunk.length;
  }
  const head = Buffer.concat(headChunks);
  const { encoding, skip } = chooseEncoding(head, options);
  const decoder = new TextDecoder(encoding);

  const first = decoder.decode(head.subarray(skip), { stream: true });
  if (first) yield first;
  if (!ended) {
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
      const chunk = typeof next.value === 'string' ? Buffer.from(next.value, 'utf8') : next.value;
      const text = decoder.decode(chunk, { stream: true });
      if (text) yield text;
    }
  }
  const last = decoder.decode();
  if (last) yield last;
}

/** The encoding a byte order mark at the start of `head` names, and the mark's length; undefined without one. */
function byteOrderMark(head: Buffer): { encoding: string; skip: number } | undefined {
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return { encoding: 'utf-8', skip: 3 };
  if (head[0] === 0xff && head[1] === 0xfe) return { encoding: 'utf-16le', skip: 2 };
  if (head[0] === 0xfe && head[1] === 0xff) return { encoding: 'utf-16be', skip: 2 };
  return undefined;
}

/**
 * Refuses (UnparseableFileError) a file whose first bytes (SNIFF_BYTES of them) show it is binary: a NUL byte without
 * a UTF-16 byte order mark. What decoding refuses before any text flows, for a caller that must know before reading on.
 */
export function checkText(head: Buffer, kind: string): void {
  if (!byteOrderMark(head) && head.includes(0)) throw new UnparseableFileError(`the file is binary, not ${kind}`);
}

function chooseEncoding(head: Buffer, options: DecodeOptions): { encoding: string; skip: number } {
  const marked = byteOrderMark(head);
  if (marked) return marked;
  checkText(head, options.kind);
  const declared = options.declaredEncoding?.(head);
  if (declared) {
    let encoding: string;
    try {
      encoding = new TextDecoder(declared).encoding;
    } catch {
      throw new UnparseableFileError(`the ${options.kind} file declares an unsupported encoding: ${declared}`);
    }
    // Without a byte order mark and without NUL bytes the text cannot be UTF-16, whatever the declaration says.
    if (!encoding.startsWith('utf-16')) return { encoding, skip: 0 };
  }
  return { encoding: isUtf8(head) ? 'utf-8' : 'windows-1252', skip: 0 };
}

function isUtf8(bytes: Buffer): boolean {
  try {
    // stream: true tolerates a character cut in two at the end of the sniffed bytes.
    new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: true });
    return true;
  } catch {
    return false;
  }
}
