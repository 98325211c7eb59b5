import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parser as jsonTokens } from 'stream-json';
import { decodeText } from './decode';
import { MAX_FILE_DEPTH, MAX_RECORD_CHARACTERS, MAX_RECORD_DEPTH, UnparseableFileError, type ParsedItem, type Parser } from './types';
import { errorMessage, setField, truncate } from './values';

/**
 * A JSON document, streamed token by token with stream-json (never JSON.parse of the whole file).
 *
 * - Records: the elements of a top-level array, or of the array of objects a top-level object holds
 *   ({"records": [...]}, {"items": [...], "total": 2}). In an object, an array counts as the records when its first
 *   element is an object; other members (scalars, objects, arrays of scalars) are skipped without being kept.
 * - An element that is not an object is one {ok: false} item ("element 3 is a string, not an object"); the rest goes on.
 * - UnparseableFileError: an empty or binary file, a scalar document, an object with no array of objects or with two,
 *   and invalid JSON anywhere ("invalid JSON after 2 records: expected an object key"). JSON cannot be resynchronised
 *   after a syntax error, so one ends the file: the records read before it go out first, then the error; the route
 *   decides what becomes of them.
 * - Bounds (types.ts): an element larger than MAX_RECORD_CHARACTERS (keys and values, counted in characters) or nested
 *   more than MAX_RECORD_DEPTH levels below its own object is one {ok: false} item; the rest of it is counted, not
 *   kept. A document nested more than MAX_FILE_DEPTH levels anywhere is an UnparseableFileError, since the tokenizer
 *   holds every open level. One string is held whole while it is read, so it is bounded by the upload's size limit.
 */
export const parseJson: Parser = (input) => jsonItems(input);

interface Token {
  name: string;
  value?: unknown;
}

// Parsed items waiting to be read beyond which the tokenizer is paused.
const QUEUE_LIMIT = 1000;
// What a token costs besides its text, in characters of an element's size.
const TOKEN_COST = 8;

async function* jsonItems(input: Readable): AsyncGenerator<ParsedItem> {
  let sawText = false;
  const text = (async function* () {
    for await (const chunk of decodeText(input, { kind: 'JSON' })) {
      if (!sawText && chunk.trim() !== '') sawText = true;
      yield chunk;
    }
  })();
  const picker = new RecordPicker();
  const tokenizer = jsonTokens({ packValues: true, streamValues: false });
  let failure: unknown;
  let ended = false;
  let wake: (() => void) | undefined;
  const signal = () => {
    wake?.();
    wake = undefined;
  };
  // Tokens are taken as they come rather than through a pipeline, so that a failure never discards the items read
  // before it: those go out first, then the failure.
  tokenizer.on('data', (token: Token) => {
    if (failure !== undefined) return;
    try {
      picker.consume(token);
    } catch (error) {
      failure = error;
      tokenizer.destroy();
    }
    if (picker.queued >= QUEUE_LIMIT) tokenizer.pause();
    signal();
  });
  tokenizer.on('end', () => {
    ended = true;
    signal();
  });
  pipeline(Readable.from(text), tokenizer).catch((error: unknown) => {
    failure ??= error;
    signal();
  });

  try {
    for (;;) {
      yield* picker.take();
      if (failure !== undefined) throw failure;
      if (ended) {
        picker.finish();
        return;
      }
      const woken = new Promise<void>((resolve) => (wake = resolve));
      tokenizer.resume();
      await woken;
    }
  } catch (error) {
    if (!isSyntaxError(error)) throw error;
    if (!sawText) throw new UnparseableFileError('the JSON file is empty');
    const where = picker.items === 0 ? '' : ` after ${picker.items} record${picker.items === 1 ? '' : 's'}`;
    throw new UnparseableFileError(`invalid JSON${where}: ${errorMessage(error).replace(/^Parser (cannot parse input: )?/, '')}`);
  } finally {
    tokenizer.destroy();
  }
}

// stream-json's own errors carry no class or code, only this wording.
function isSyntaxError(error: unknown): boolean {
  return error instanceof Error && !(error instanceof UnparseableFileError) && /^Parser /.test(error.message);
}

type Phase = 'start' | 'wrapper' | 'firstElement' | 'skip' | 'records' | 'done';

/** Turns the token stream into items, holding one element at a time. */
class RecordPicker {
  items = 0;
  private queue: ParsedItem[] = [];
  private phase: Phase = 'start';
  private rootIsArray = false;
  private memberKey = '';
  private recordsKey: string | undefined;
  private sawEmptyArray = false;
  private skipDepth = 0;
  private element: ValueBuilder | undefined;
  private elementIndex = 0;
  private depth = 0;

  get queued(): number {
    return this.queue.length;
  }

  /** The items read since the last call. */
  take(): ParsedItem[] {
    const items = this.queue;
    this.queue = [];
    return items;
  }

  /** At the end of the tokens, which the tokenizer only lets through for a complete document. */
  finish(): void {
    if (this.phase !== 'done') throw new UnparseableFileError('the JSON document ends early');
  }

  consume(token: Token): void {
    if (token.name === 'startObject' || token.name === 'startArray') {
      if (++this.depth > MAX_FILE_DEPTH) {
        const where = this.items === 0 ? '' : ` (after ${this.items} record${this.items === 1 ? '' : 's'})`;
        throw new UnparseableFileError(`the JSON document is nested more than ${MAX_FILE_DEPTH} levels deep${where}`);
      }
    } else if (token.name === 'endObject' || token.name === 'endArray') {
      this.depth--;
    }
    switch (this.phase) {
      case 'start':
        if (token.name === 'startArray') {
          this.rootIsArray = true;
          this.phase = 'records';
        } else if (token.name === 'startObject') {
          this.phase = 'wrapper';
        } else {
          throw new UnparseableFileError(
            `the JSON document is ${describe(token)}, not an array of objects or an object holding one`,
          );
        }
        return;
      case 'wrapper':
        if (token.name === 'keyValue') this.memberKey = String(token.value);
        else if (token.name === 'startArray') this.phase = 'firstElement';
        else if (token.name === 'startObject') this.skipFrom(1);
        else if (token.name === 'endObject') this.endWrapper();
        return;
      case 'firstElement':
        if (token.name === 'startObject') {
          if (this.recordsKey !== undefined) {
            throw new UnparseableFileError(
              `the JSON object holds more than one array of objects ("${this.recordsKey}" and "${this.memberKey}")`,
            );
          }
          this.recordsKey = this.memberKey;
          this.phase = 'records';
          this.takeElement(token);
        } else if (token.name === 'endArray') {
          this.sawEmptyArray = true;
          this.phase = 'wrapper';
        } else {
          this.skipFrom(1);
          this.consume(token);
        }
        return;
      case 'skip':
        if (token.name === 'startObject' || token.name === 'startArray') this.skipDepth++;
        else if (token.name === 'endObject' || token.name === 'endArray') this.skipDepth--;
        if (this.skipDepth === 0) this.phase = 'wrapper';
        return;
      case 'records':
        if (!this.element && token.name === 'endArray') {
          this.phase = this.rootIsArray ? 'done' : 'wrapper';
          return;
        }
        this.takeElement(token);
        return;
      case 'done':
        return;
    }
  }

  private takeElement(token: Token): void {
    this.element ??= new ValueBuilder();
    this.element.consume(token);
    if (!this.element.done) return;
    const { value, overflow } = this.element;
    this.element = undefined;
    const position = this.elementIndex++;
    if (overflow !== undefined) {
      this.queue.push({ index: this.items++, ok: false, error: `element ${position} ${overflow}`, raw: null });
    } else if (isObject(value)) {
      this.queue.push({ index: this.items++, ok: true, data: value });
    } else {
      const raw = typeof value === 'string' ? truncate(value) : value;
      this.queue.push({ index: this.items++, ok: false, error: `element ${position} is ${kindOf(value)}, not an object`, raw });
    }
  }

  private skipFrom(depth: number): void {
    this.phase = 'skip';
    this.skipDepth = depth;
  }

  private endWrapper(): void {
    this.phase = 'done';
    if (this.recordsKey === undefined && !this.sawEmptyArray) {
      throw new UnparseableFileError('the JSON object holds no array of objects');
    }
  }
}

/**
 * Builds one value from its tokens (stream-json's Assembler, but without letting a "__proto__" key set a prototype).
 * A value over MAX_RECORD_CHARACTERS or MAX_RECORD_DEPTH is dropped with the reason in `overflow`; its remaining tokens
 * are only counted until it ends.
 */
class ValueBuilder {
  value: unknown;
  done = false;
  overflow: string | undefined;
  private containers: (Record<string, unknown> | unknown[])[] = [];
  private keys: string[] = [];
  private key = '';
  private size = 0;
  private depth = 0;

  consume(token: Token): void {
    if (token.name === 'startObject' || token.name === 'startArray') this.depth++;
    else if (token.name === 'endObject' || token.name === 'endArray') this.depth--;
    if (this.overflow !== undefined) {
      if (this.depth === 0) this.done = true;
      return;
    }
    this.size += TOKEN_COST + (typeof token.value === 'string' ? token.value.length : 0);
    // The element's own object is level 1.
    if (this.depth > MAX_RECORD_DEPTH + 1) this.drop(`is nested more than ${MAX_RECORD_DEPTH} levels deep`);
    else if (this.size > MAX_RECORD_CHARACTERS) this.drop(`is larger than ${MAX_RECORD_CHARACTERS / (1024 * 1024)} MB`);
    if (this.overflow !== undefined) {
      if (this.depth === 0) this.done = true;
      return;
    }
    switch (token.name) {
      case 'startObject':
      case 'startArray':
        this.keys.push(this.key);
        this.containers.push(token.name === 'startObject' ? {} : []);
        return;
      case 'endObject':
      case 'endArray': {
        const finished = this.containers.pop();
        this.key = this.keys.pop() ?? '';
        this.add(finished);
        return;
      }
      case 'keyValue':
        this.key = String(token.value);
        return;
      case 'stringValue':
        this.add(token.value);
        return;
      case 'numberValue':
        this.add(Number(token.value));
        return;
      case 'nullValue':
        this.add(null);
        return;
      case 'trueValue':
        this.add(true);
        return;
      case 'falseValue':
        this.add(false);
        return;
    }
  }

  private drop(reason: string): void {
    this.overflow = reason;
    this.containers = [];
    this.keys = [];
  }

  private add(value: unknown): void {
    const parent = this.containers[this.containers.length - 1];
    if (!parent) {
      this.value = value;
      this.done = true;
    } else if (Array.isArray(parent)) {
      parent.push(value);
    } else {
      setField(parent, this.key, value);
    }
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

function describe(token: Token): string {
  switch (token.name) {
    case 'stringValue':
      return 'a string';
    case 'numberValue':
      return 'a number';
    case 'nullValue':
      return 'null';
    default:
      return 'a boolean';
  }
}
