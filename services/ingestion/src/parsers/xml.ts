import sax from 'sax';
import { decodeText } from './decode';
import {
  MAX_FILE_DEPTH,
  MAX_RECORD_CHARACTERS,
  MAX_RECORD_DEPTH,
  UnparseableFileError,
  type ParsedItem,
  type ParseOptions,
  type Parser,
} from './types';
import { castScalar, setField } from './values';

/**
 * Above this many children, a first child of the root that still looks like a container is taken as one, so its
 * records stream instead of waiting in memory for the decision below.
 */
const PROBE_CHILDREN = 1000;
/** What an element costs besides its name, attributes and text, in characters of a record's size. */
const ELEMENT_COST = 16;

/**
 * Namespaces of feed vocabularies whose names mean the same without a prefix (`g:price` is a price), by namespace URI:
 * the prefix a file binds to them is its own choice.
 */
const PLAIN_NAMESPACES = new Set([
  // Google merchant (Google Base) feeds: g:id, g:price, g:availability; custom attributes c:…
  'http://base.google.com/ns/1.0',
  'http://base.google.com/cns/1.0',
  // Atom, also as atom:link inside RSS.
  'http://www.w3.org/2005/Atom',
  // RSS content module: content:encoded.
  'http://purl.org/rss/1.0/modules/content/',
  // Dublin Core elements and terms: dc:creator, dc:date, dcterms:modified.
  'http://purl.org/dc/elements/1.1/',
  'http://purl.org/dc/terms/',
  // Media RSS: media:content, media:thumbnail, media:title.
  'http://search.yahoo.com/mrss/',
]);

/**
 * XML, streamed through sax in strict mode (no DTD is read, no entity beyond the five predefined ones expands, nothing
 * is fetched).
 *
 * Which elements are records:
 * - With opts.recordTag: every element of that name at any depth (an element of that name inside a record is a field).
 * - Without: the children of the root element. One exception: when the root has a single child that is only a
 *   wrapper (no attributes, no text of its own, all its children share one name and have children or attributes of
 *   their own), its children are the records, as in <catalog><products><product>…</product>…</products></catalog>.
 *
 * A record becomes an object:
 * - a child element with only text becomes a field holding that text, typed like a CSV cell (castScalar);
 * - a child element with children or attributes becomes a nested object built by the same rules;
 * - children repeating a name become an array under that name;
 * - attributes become fields, named `@name` only where a child element has the same name;
 * - text beside child elements or attributes becomes `#text`; CDATA counts as text; empty text leaves the field out;
 * - an element or attribute name whose prefix is bound to a well-known feed namespace (PLAIN_NAMESPACES: Google
 *   merchant, Atom, RSS content, Dublin Core, Media RSS) loses its prefix (`g:price` is `price`), unless an unprefixed
 *   name beside it, or another one losing its prefix, is the same (`title` beside `dc:title`); other prefixes stay.
 *
 * Errors: a well-formedness error inside a record (a mistyped closing tag, an unquoted attribute, an unknown entity)
 * makes that record one {ok: false} item, its raw data what was read of it, and the rest goes on. When such a record
 * never closes but a sibling of the same name opens inside it, that sibling starts the next record. Any error before
 * the first record, text after the root element, a file that ends before its root element closes, or no element at all
 * is an UnparseableFileError; so is a recordTag that matches nothing.
 *
 * Bounds (types.ts): a record larger than MAX_RECORD_CHARACTERS (names, attributes and text) or with elements more
 * than MAX_RECORD_DEPTH levels below its own is one {ok: false} item, its raw data the record element's attributes;
 * the rest of it is skipped without being kept. Elements nested more than MAX_FILE_DEPTH levels anywhere make the file
 * an UnparseableFileError, so neither sax's stack of open elements nor ours grows with a hostile file.
 */
export const parseXml: Parser = (input, opts) => xmlItems(input, opts);

interface XmlNode {
  name: string;
  /** The name without its prefix, when the prefix is bound to one of PLAIN_NAMESPACES. */
  plain?: string;
  attributes: Record<string, string>;
  /** The same for prefixed attribute names, by name. */
  plainAttributes?: Record<string, string>;
  children: XmlNode[];
  text: string;
  line: number;
  error?: string;
}

interface RecordBuild {
  /** Open elements of the record, the record element first. */
  stack: XmlNode[];
  /** Characters of the record read so far (ELEMENT_COST an element, names, attributes, text). */
  size: number;
  /** The record broke a bound: its content is dropped and what remains of it is skipped. */
  full: boolean;
  /** Open elements of a full record that were skipped. */
  skipping: number;
}

async function* xmlItems(input: AsyncIterable<Buffer | string>, opts: ParseOptions): AsyncGenerator<ParsedItem> {
  const reader = new RecordReader(opts.recordTag);
  for await (const chunk of decodeText(input, { kind: 'XML', declaredEncoding })) {
    yield* reader.write(chunk);
  }
  yield* reader.close();
}

class RecordReader {
  private readonly parser = sax.parser(true, { trim: false, normalize: false, position: true, xmlns: false });
  private out: ParsedItem[] = [];
  private index = 0;
  private depth = 0;
  private rootName = '';
  private current: RecordBuild | undefined;
  private recordsStarted = false;
  private closing = false;
  // Without a recordTag: the depth of the element whose children are records, once decided.
  private containerDepth: number | undefined;
  // Without a recordTag, until that is decided: the root's first child, read like a record but not yet emitted...
  private probe: XmlNode | undefined;
  private probeChildren = 0;
  // ...and once it has closed, kept until a sibling or the end of the root tells what it is.
  private firstChild: XmlNode | undefined;
  // The namespace URI each prefix is bound to in the open element, and in each element around it.
  private namespaces = new Map<string, string>();
  private readonly outerNamespaces: Map<string, string>[] = [];

  constructor(private readonly recordTag: string | undefined) {
    this.parser.onopentag = (tag) => {
      const attributes = tag.attributes as Record<string, string>;
      this.enterScope(attributes);
      this.openElement(tag.name, attributes);
    };
    this.parser.onclosetag = () => {
      this.closeElement();
      this.namespaces = this.outerNamespaces.pop()!;
    };
    this.parser.ontext = (text) => this.addText(text);
    this.parser.oncdata = (text) => this.addText(text);
    this.parser.onerror = (error) => this.fail(error);
  }

  // A fatal error surfaces from inside sax; the records read before it in the same chunk go out first.
  *write(chunk: string): Generator<ParsedItem> {
    try {
      this.parser.write(chunk);
    } finally {
      yield* this.drain();
    }
  }

  *close(): Generator<ParsedItem> {
    try {
      this.settleTagError();
      this.closing = true;
      this.parser.close();
    } finally {
      yield* this.drain();
    }
    if (!this.rootName) throw new UnparseableFileError('the XML file holds no element');
    if (this.recordTag !== undefined && !this.recordsStarted) {
      throw new UnparseableFileError(`the XML holds no <${this.recordTag}> element`);
    }
  }

  /** Binds the prefixes an element declares (`xmlns:g="…"`) for it and the elements inside it. */
  private enterScope(attributes: Record<string, string>): void {
    this.outerNamespaces.push(this.namespaces);
    for (const name in attributes) {
      if (!name.startsWith('xmlns:')) continue;
      if (this.namespaces === this.outerNamespaces.at(-1)) this.namespaces = new Map(this.namespaces);
      this.namespaces.set(name.slice('xmlns:'.length), attributes[name]!);
    }
  }

  private plainName(name: string): string | undefined {
    const colon = name.indexOf(':');
    if (colon <= 0 || this.namespaces.size === 0) return undefined;
    const uri = this.namespaces.get(name.slice(0, colon));
    const local = name.slice(colon + 1);
    return uri !== undefined && PLAIN_NAMESPACES.has(uri) && local !== '' ? local : undefined;
  }

  private namePlainly(node: XmlNode): void {
    if (this.namespaces.size === 0) return;
    node.plain = this.plainName(node.name);
    for (const name of Object.keys(node.attributes)) {
      const plain = this.plainName(name);
      if (plain !== undefined) (node.plainAttributes ??= {})[name] = plain;
    }
  }

  private *drain(): Generator<ParsedItem> {
    yield* this.out.splice(0);
  }

  private openElement(name: string, attributes: Record<string, string>): void {
    this.depth++;
    if (this.depth > MAX_FILE_DEPTH) {
      throw new UnparseableFileError(`elements are nested more than ${MAX_FILE_DEPTH} levels deep (line ${this.parser.line + 1})`);
    }
    const node: XmlNode = { name, attributes, children: [], text: '', line: this.parser.line + 1 };
    this.namePlainly(node);
    if (this.depth === 1) this.rootName = name;
    const current = this.current;
    if (!current) {
      const tagError = this.takeTagError();
      if (this.isRecordStart(name)) {
        this.startRecord(node);
        if (tagError?.position === this.parser.startTagPosition) node.error = tagError.message;
        else if (tagError) this.outsideRecords(tagError.message);
      } else if (tagError) {
        this.outsideRecords(tagError.message);
      }
      return;
    }
    const record = current.stack[0]!;
    if (current.full) {
      current.skipping++;
      return;
    }
    if (record.error !== undefined && name === record.name) {
      // A broken record that never closed: a sibling opened inside it, so the broken one ends here.
      if (this.recordTag === undefined) this.containerDepth = this.depth - 1;
      this.endRecord(record);
      this.startRecord(node);
      return;
    }
    if (current.stack.length > MAX_RECORD_DEPTH) {
      if (record === this.probe && this.settleProbe()) {
        // The root's first child was the wrapper of the records: this element belongs to the open record, one level less deep.
        this.depth--;
        this.openElement(name, attributes);
        return;
      }
      this.fill(current, `elements are nested more than ${MAX_RECORD_DEPTH} levels below <${record.name}>`);
      current.skipping++;
      return;
    }
    current.stack[current.stack.length - 1]!.children.push(node);
    current.stack.push(node);
    if (record === this.probe && current.stack.length === 2) this.probeChildAdded();
    this.grow(elementSize(node));
  }

  /** Counts characters into the open record, which becomes full (a dead letter) past MAX_RECORD_CHARACTERS. */
  private grow(characters: number): void {
    const current = this.current;
    if (!current || current.full) return;
    current.size += characters;
    if (current.size <= MAX_RECORD_CHARACTERS) return;
    // The root's first child may be the wrapper of the records rather than one large record.
    if (current.stack[0] === this.probe && this.settleProbe()) return;
    this.fill(this.current!, `the record is larger than ${MAX_RECORD_CHARACTERS / (1024 * 1024)} MB`);
  }

  private fill(current: RecordBuild, error: string): void {
    const record = current.stack[0]!;
    current.full = true;
    record.error ??= error;
    record.children = [];
    record.text = '';
  }

  private closeElement(): void {
    this.settleTagError();
    this.depth--;
    const current = this.current;
    if (current && current.skipping > 0) {
      current.skipping--;
      return;
    }
    if (current) {
      const record = current.stack[0]!;
      current.stack.pop();
      if (current.stack.length === 0) {
        if (record === this.probe) {
          this.firstChild = record;
          this.probe = undefined;
          this.current = undefined;
        } else {
          this.endRecord(record);
        }
      }
    }
    // Elements left open by a broken record close later than expected; records are the children of what is open.
    if (this.containerDepth !== undefined && this.depth < this.containerDepth) this.containerDepth = this.depth;
    if (this.depth === 0 && this.firstChild) {
      // The root had one child: the records are its children if it is only a wrapper, else it is the one record.
      const first = this.firstChild;
      this.firstChild = undefined;
      if (isContainer(first, false)) for (const child of first.children) this.emit(child);
      else this.emit(first);
    }
  }

  private addText(text: string): void {
    this.settleTagError();
    const current = this.current;
    if (!current || current.full) return;
    current.stack[current.stack.length - 1]!.text += text;
    this.grow(text.length);
  }

  private fail(error: Error): void {
    const message = this.describe(error);
    this.parser.resume();
    if (this.closing) throw new UnparseableFileError(`the XML ends before <${this.rootName}> is closed (${message})`);
    const current = this.current;
    if (current) {
      for (const node of current.stack) {
        // sax reports a mistyped closing tag first as unexpected, then as unmatched, which names it.
        if (node.error === undefined || (node.error.startsWith('Unexpected close tag') && message.startsWith('Unmatched'))) {
          node.error = message;
        }
      }
      return;
    }
    // An error inside a start tag (an unquoted attribute) comes before the element opens; it belongs to that element
    // if it turns out to be a record, which the next event tells.
    this.tagError ??= { position: this.parser.startTagPosition, message };
  }

  private tagError: { position: number; message: string } | undefined;

  private takeTagError(): { position: number; message: string } | undefined {
    const tagError = this.tagError;
    this.tagError = undefined;
    return tagError;
  }

  private settleTagError(): void {
    const tagError = this.takeTagError();
    if (tagError) this.outsideRecords(tagError.message);
  }

  private outsideRecords(message: string): void {
    // Between records this is the aftermath of a record that broke; anywhere else the document itself is broken.
    if (this.recordsStarted && this.depth > 0) return;
    throw new UnparseableFileError(`invalid XML: ${message}`);
  }

  private describe(error: Error): string {
    return `${error.message.split('\n')[0]!.replace(/\.$/, '')} at line ${this.parser.line + 1}, column ${this.parser.column + 1}`;
  }

  private isRecordStart(name: string): boolean {
    if (this.recordTag !== undefined) return name === this.recordTag;
    if (this.containerDepth !== undefined) return this.depth === this.containerDepth + 1;
    if (this.depth !== 2) return false;
    if (this.firstChild) {
      // A second child of the root: the root's children are the records, the first one included.
      this.containerDepth = 1;
      this.emit(this.firstChild);
      this.firstChild = undefined;
    }
    return true;
  }

  private startRecord(node: XmlNode): void {
    this.recordsStarted = true;
    this.current = { stack: [node], size: elementSize(node), full: false, skipping: 0 };
    if (this.recordTag === undefined && this.containerDepth === undefined) {
      this.probe = node;
      this.probeChildren = 0;
    }
  }

  private probeChildAdded(): void {
    if (++this.probeChildren > PROBE_CHILDREN) this.settleProbe();
  }

  /**
   * That many alike children, or that much text in them: the first child is the container if it looks like one. Its
   * finished children go out, the open one is read on as a record. Whether it was taken as the container.
   */
  private settleProbe(): boolean {
    const probe = this.probe!;
    if (!isContainer(probe, true)) return false;
    this.containerDepth = 2;
    this.probe = undefined;
    const stack = this.current!.stack.slice(1);
    for (const child of probe.children) if (child !== stack[0]) this.emit(child);
    probe.children = [];
    this.current = stack.length > 0 ? { stack, size: treeSize(stack[0]!), full: false, skipping: 0 } : undefined;
    return true;
  }

  private endRecord(record: XmlNode): void {
    this.current = undefined;
    if (record === this.probe) this.probe = undefined;
    this.emit(record);
  }

  private emit(record: XmlNode): void {
    const data = toObject(record);
    if (record.error === undefined) {
      this.out.push({ index: this.index++, ok: true, data });
    } else {
      this.out.push({
        index: this.index++,
        ok: false,
        error: `<${record.name}> starting at line ${record.line}: ${record.error}`,
        raw: data,
      });
    }
  }
}

function elementSize(node: XmlNode): number {
  let size = ELEMENT_COST + node.name.length + node.text.length;
  for (const [key, value] of Object.entries(node.attributes)) size += key.length + value.length;
  return size;
}

/** The size of an element and everything in it (at most MAX_FILE_DEPTH levels). */
function treeSize(node: XmlNode): number {
  let size = elementSize(node);
  for (const child of node.children) size += treeSize(child);
  return size;
}

/**
 * A wrapper rather than a record: no attributes or text of its own, children all of one name, each with children or
 * attributes. `open` allows the last child to be still empty because it is still being read.
 */
function isContainer(node: XmlNode, open: boolean): boolean {
  if (Object.keys(node.attributes).length > 0 || node.text.trim() !== '' || node.children.length === 0) return false;
  const name = node.children[0]!.name;
  return node.children.every(
    (child, i) =>
      child.name === name &&
      ((open && i === node.children.length - 1) || child.children.length > 0 || Object.keys(child.attributes).length > 0),
  );
}

function toObject(node: XmlNode): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  const groups = new Map<string, XmlNode[]>();
  for (const child of node.children) {
    const group = groups.get(child.name);
    if (group) group.push(child);
    else groups.set(child.name, [child]);
  }
  const key = fieldNames(node, groups);
  const childKeys = key ? new Set([...groups.keys()].map(key)) : groups;
  for (const [name, value] of Object.entries(node.attributes)) {
    const text = value.trim();
    const field = key ? key(name) : name;
    if (text !== '') setField(data, childKeys.has(field) ? `@${field}` : field, castScalar(text));
  }
  for (const [name, nodes] of groups) {
    const values = nodes.map(toValue).filter((value) => value !== undefined);
    if (values.length === 0) continue;
    setField(data, key ? key(name) : name, nodes.length > 1 ? values : values[0]);
  }
  const text = node.text.trim();
  if (text !== '') setField(data, '#text', castScalar(text));
  return data;
}

/**
 * The field name of each attribute and child element name of a node: its plain name where it has one, unless another
 * of them has or takes the same name (an unprefixed `<title>` beside `<dc:title>`), when it keeps its prefix. Undefined
 * when every name is its own field name.
 */
function fieldNames(node: XmlNode, groups: Map<string, XmlNode[]>): ((name: string) => string) | undefined {
  if (node.plainAttributes === undefined && !node.children.some((child) => child.plain !== undefined)) return undefined;
  const plain = new Map<string, string>();
  for (const [name, nodes] of groups) if (nodes[0]!.plain !== undefined) plain.set(name, nodes[0]!.plain);
  for (const [name, local] of Object.entries(node.plainAttributes ?? {})) plain.set(name, local);
  const claims = new Map<string, Set<string>>();
  for (const name of [...groups.keys(), ...Object.keys(node.attributes)]) {
    const wanted = plain.get(name) ?? name;
    claims.set(wanted, (claims.get(wanted) ?? new Set()).add(name));
  }
  return (name) => {
    const wanted = plain.get(name);
    return wanted !== undefined && claims.get(wanted)!.size === 1 ? wanted : name;
  };
}

function toValue(node: XmlNode): unknown {
  if (node.children.length === 0 && Object.keys(node.attributes).length === 0) {
    const text = node.text.trim();
    return text === '' ? undefined : castScalar(text);
  }
  return toObject(node);
}

// The encoding named in the XML declaration, which must come first in the file and is ASCII whatever follows.
function declaredEncoding(head: Buffer): string | undefined {
  const declaration = /^<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._-]+)["']/.exec(head.subarray(0, 200).toString('latin1'));
  return declaration?.[1];
}
