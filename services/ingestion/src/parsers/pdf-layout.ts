/**
 * A piece of text on a page as pdf.js reports it: its baseline start (PDF units, y up), width and font size, and
 * whether its font is monospaced.
 */
export interface TextRun {
  text: string;
  x: number;
  y: number;
  width: number;
  size: number;
  mono?: boolean;
}

export interface PageText {
  markdown: string;
  firstHeading?: string;
  firstLine?: string;
}

interface Line {
  text: string;
  x: number;
  y: number;
  size: number;
  /** Every run of the line is monospaced: its text keeps its spaces, and `x` is where its first run starts. */
  mono?: { charWidth: number };
}

type Block =
  | { kind: 'code'; lines: { text: string; x: number; y: number }[]; charWidth: number }
  | { kind: 'heading'; level: number; text: string; size: number }
  | { kind: 'paragraph'; text: string }
  | { kind: 'item'; marker: string; text: string; x: number };

// A line this much larger than the body text is a heading.
const HEADING_RATIO = 1.15;
// A gap between lines this much wider than the usual line step starts a new paragraph.
const PARAGRAPH_RATIO = 1.3;
const BULLET = /^[•·▪◦‣●■]\s*(.*)$/;
const DASH_BULLET = /^[-*–—]\s+(.*)$/;
const NUMBERED = /^(\d{1,3})[.)]\s+(.*)$/;
// Running headers and footers: lines this close to the top or bottom of a page, repeated at one height on this share of
// the pages with text, and on at least this many.
const EDGE_LINES = 2;
const RUNNING_SHARE = 0.6;
const RUNNING_PAGES = 3;
// A page number alone on a line: `7`, `- 7 -`, `Page 7`, `7 / 12`, `Page 7 of 12`.
const PAGE_NUMBER = /^(?:-\s*(\d{1,4})\s*-|(?:page|p\.|seite)?\s*(\d{1,4})(?:\s*(?:\/|of|von)\s*\d{1,4})?)$/i;
// Letter-spaced text as pdf.js gives it: single letters separated by single spaces, three or more.
const SPACED_LETTERS = /^\p{L}(?: \p{L}){2,}$/u;

/**
 * Lays out the text of a whole document as markdown, one string per page. The body size, heading sizes and line
 * step are measured over all pages so that a page is read by the same rules as the others:
 *
 * - lines: runs whose baselines lie within half a font size of each other, read left to right, with a space where
 *   the gap between two runs is wider than a sixth of the font size; letter-spaced text (`s h e` as pdf.js spaces a
 *   tracked word, or single letters set apart by a gap much narrower than the line's word gaps) is joined into words;
 * - running headers and footers: a line among the two at the top or bottom of its page that is repeated at the same
 *   height on at least 60% of the pages with text, and on 3 or more, is dropped everywhere, as is a page number alone
 *   on such a line (`7`, `- 7 -`, `Page 7 of 12`) when it is repeated so or is the number of its own page;
 * - code: consecutive lines set in a monospaced font (every glyph of one width, as pdf.js reads the font: Courier, the
 *   *Mono faces) are a fenced code block, their spaces and indentation kept;
 * - body size: the font size carrying the most characters;
 * - headings: lines at least 15% larger than the body size; the largest heading size is `#`, the next `##`, smaller
 *   ones `###`; consecutive heading lines of one size are one heading;
 * - paragraphs: consecutive lines, broken where the vertical gap exceeds 1.3 times the usual line step (the most common
 *   gap between body lines, between 1 and 1.8 body sizes); a hyphen ending a line before a lower-case word is joined;
 * - list items: a line starting with a bullet (• · ▪ ◦ ‣ ● ■, or - * – followed by a space) becomes `- text`, one
 *   starting with `1.` or `1)` becomes `1. text`; indented lines that follow without a paragraph gap continue the item.
 *
 * `pause` is awaited after each page's lines and each page's markdown, so a caller can let other work run between
 * pages: laying out a long document would otherwise hold the thread for all its pages at once.
 */
export async function layoutDocument(pages: TextRun[][], pause: () => Promise<void> = async () => undefined): Promise<PageText[]> {
  const pageLines: Line[][] = [];
  for (const runs of pages) {
    pageLines.push(toLines(runs));
    await pause();
  }
  dropRunningLines(pageLines);
  const body = bodySize(pages.flat());
  const levels = headingLevels(pageLines.flat(), body);
  const step = lineStep(pageLines, body);
  const texts: PageText[] = [];
  for (const lines of pageLines) {
    texts.push(pageText(toBlocks(lines, body, levels, step), lines[0]));
    await pause();
  }
  return texts;
}

function toLines(runs: TextRun[]): Line[] {
  const sorted = runs.filter((run) => run.text !== '').sort((a, b) => b.y - a.y || a.x - b.x);
  const groups: TextRun[][] = [];
  for (const run of sorted) {
    const group = groups[groups.length - 1];
    const anchor = group?.[0];
    if (group && anchor && Math.abs(anchor.y - run.y) <= Math.max(Math.min(anchor.size, run.size), 1) * 0.5) group.push(run);
    else groups.push([run]);
  }
  const lines: Line[] = [];
  for (const group of groups) {
    group.sort((a, b) => a.x - b.x);
    const visible = group.filter((run) => run.text.trim() !== '');
    if (visible.length === 0) continue;
    if (group.every((run) => run.mono)) {
      lines.push(monoLine(group, visible));
      continue;
    }
    const letterGap = letterSpacing(group);
    let text = '';
    let end = -Infinity;
    let previous: TextRun | undefined;
    for (const run of group) {
      const gap = run.x - end;
      const spaced = letterGap !== undefined && previous !== undefined && isLetter(previous.text) && isLetter(run.text) && gap <= letterGap;
      if (text !== '' && gap > run.size / 6 && !spaced && !/\s$/.test(text) && !/^\s/.test(run.text)) text += ' ';
      text += SPACED_LETTERS.test(run.text.trim()) ? run.text.replace(/(\p{L}) (?=\p{L})/gu, '$1') : run.text;
      end = Math.max(end, run.x + run.width);
      previous = run;
    }
    text = text.replace(/\s+/g, ' ').trim();
    if (text === '') continue;
    lines.push({ text, ...extent(visible) });
  }
  return lines;
}

const isLetter = (text: string) => text.length === 1 && /\p{L}/u.test(text);

/**
 * The widest gap still between two letters of one word in a line drawn a letter at a time with letter spacing: gaps
 * between single letters up to half again the narrowest one (and at most half the font size, so table columns of single
 * letters stay apart). Undefined when the line has fewer than three single letters in a row.
 */
function letterSpacing(group: TextRun[]): number | undefined {
  let narrowest = Infinity;
  let inRow = 1;
  let longestRow = 1;
  for (let i = 1; i < group.length; i++) {
    const [a, b] = [group[i - 1]!, group[i]!];
    if (!isLetter(a.text) || !isLetter(b.text)) {
      inRow = 1;
      continue;
    }
    longestRow = Math.max(longestRow, ++inRow);
    const gap = b.x - (a.x + a.width);
    if (gap > b.size / 6) narrowest = Math.min(narrowest, gap);
  }
  if (longestRow < 3 || narrowest === Infinity) return undefined;
  return Math.min(narrowest * 1.5, group[0]!.size / 2);
}

/** A line of monospaced runs: each run at the column its position gives, so spaces and alignment survive. */
function monoLine(group: TextRun[], visible: TextRun[]): Line {
  const charWidth = monoWidth(group);
  const x = group[0]!.x;
  let text = '';
  for (const run of group) {
    const column = Math.round((run.x - x) / charWidth);
    if (column > text.length) text += ' '.repeat(column - text.length);
    text += run.text;
  }
  return { text: text.trimEnd(), ...extent(visible), x, mono: { charWidth } };
}

/** The advance of one character of a monospaced line, from its longest run, else from the font size. */
function monoWidth(group: TextRun[]): number {
  let longest: TextRun | undefined;
  for (const run of group) if (run.text.length > (longest?.text.length ?? 0)) longest = run;
  const width = longest && longest.width > 0 ? longest.width / longest.text.length : 0;
  return width > 0 ? width : group[0]!.size * 0.6;
}

/**
 * Drops running headers and footers and page numbers (see layoutDocument). A line is known by its height, rounded to a
 * unit, and its text; a page number by its height alone, as it changes from page to page.
 */
function dropRunningLines(pages: Line[][]): void {
  const withText = pages.filter((lines) => lines.length > 0).length;
  const needed = Math.max(RUNNING_PAGES, Math.ceil(withText * RUNNING_SHARE));
  const keyOf = (line: Line) => `${Math.round(line.y)}\n${PAGE_NUMBER.test(line.text) ? '#' : line.text}`;
  const edges = (lines: Line[]) =>
    lines.length <= EDGE_LINES * 2 ? lines : [...lines.slice(0, EDGE_LINES), ...lines.slice(-EDGE_LINES)];
  const pagesOf = new Map<string, number>();
  for (const lines of pages) {
    for (const key of new Set(edges(lines).map(keyOf))) pagesOf.set(key, (pagesOf.get(key) ?? 0) + 1);
  }
  pages.forEach((lines, i) => {
    const dropped = new Set<Line>();
    for (const line of edges(lines)) {
      if ((pagesOf.get(keyOf(line)) ?? 0) >= needed) dropped.add(line);
    }
    // The first or last line may be the page's own number, whatever the other pages hold.
    for (const line of [lines[0], lines[lines.length - 1]]) {
      const number = line && PAGE_NUMBER.exec(line.text);
      if (number && Number(number[1] ?? number[2]) === i + 1) dropped.add(line!);
    }
    if (dropped.size > 0) pages[i] = lines.filter((line) => !dropped.has(line));
  });
}

/** Where a line's visible runs start and sit, and their largest size; a loop, as a line may hold thousands of runs. */
function extent(runs: TextRun[]): { x: number; y: number; size: number } {
  let x = Infinity;
  let y = -Infinity;
  let size = -Infinity;
  for (const run of runs) {
    x = Math.min(x, run.x);
    y = Math.max(y, run.y);
    size = Math.max(size, run.size);
  }
  return { x, y, size };
}

function bodySize(runs: TextRun[]): number {
  const chars = new Map<number, number>();
  for (const run of runs) {
    const size = roundSize(run.size);
    chars.set(size, (chars.get(size) ?? 0) + run.text.trim().length);
  }
  let best = 0;
  let bestChars = -1;
  for (const [size, count] of chars) {
    if (count > bestChars || (count === bestChars && size < best)) {
      best = size;
      bestChars = count;
    }
  }
  return best || 12;
}

function headingLevels(lines: Line[], body: number): Map<number, number> {
  const sizes = [...new Set(lines.filter((l) => l.size >= body * HEADING_RATIO).map((l) => roundSize(l.size)))];
  sizes.sort((a, b) => b - a);
  return new Map(sizes.map((size, i) => [size, Math.min(i + 1, 3)]));
}

function lineStep(pages: Line[][], body: number): number {
  const counts = new Map<number, number>();
  for (const lines of pages) {
    for (let i = 1; i < lines.length; i++) {
      const [above, below] = [lines[i - 1]!, lines[i]!];
      if (roundSize(above.size) !== body || roundSize(below.size) !== body) continue;
      const gap = roundSize(above.y - below.y);
      if (gap > 0 && gap <= body * 2.5) counts.set(gap, (counts.get(gap) ?? 0) + 1);
    }
  }
  let step = body * 1.2;
  let seen = 0;
  for (const [gap, count] of counts) {
    if (count > seen || (count === seen && gap < step)) {
      step = gap;
      seen = count;
    }
  }
  return Math.min(Math.max(step, body), body * 1.8);
}

function toBlocks(lines: Line[], body: number, levels: Map<number, number>, step: number): Block[] {
  const blocks: Block[] = [];
  let previous: Line | undefined;
  for (const line of lines) {
    const last = blocks[blocks.length - 1];
    const gap = previous ? previous.y - line.y : Infinity;
    const sameBlock = gap <= step * PARAGRAPH_RATIO * Math.max(line.size, previous?.size ?? 0) / body;
    previous = line;

    if (line.mono) {
      // Blank lines inside a code block open wider gaps than a paragraph break would allow.
      const code = last?.kind === 'code' && gap <= step * 4 * line.size / body ? last : undefined;
      if (code) code.lines.push(line);
      else blocks.push({ kind: 'code', lines: [line], charWidth: line.mono.charWidth });
      continue;
    }
    const level = line.size >= body * HEADING_RATIO ? levels.get(roundSize(line.size)) : undefined;
    if (level !== undefined) {
      if (last?.kind === 'heading' && last.size === roundSize(line.size) && sameBlock) last.text += ` ${line.text}`;
      else blocks.push({ kind: 'heading', level, text: line.text, size: roundSize(line.size) });
      continue;
    }
    const item = listItem(line.text);
    if (item) {
      blocks.push({ kind: 'item', marker: item.marker, text: item.text, x: line.x });
      continue;
    }
    if (sameBlock && last?.kind === 'item' && line.x > last.x + 2) last.text = joinLines(last.text, line.text);
    else if (sameBlock && last?.kind === 'paragraph') last.text = joinLines(last.text, line.text);
    else blocks.push({ kind: 'paragraph', text: line.text });
  }
  return blocks;
}

function listItem(text: string): { marker: string; text: string } | undefined {
  const bullet = BULLET.exec(text) ?? DASH_BULLET.exec(text);
  if (bullet) return bullet[1] ? { marker: '-', text: bullet[1] } : undefined;
  const numbered = NUMBERED.exec(text);
  if (numbered) return { marker: `${numbered[1]}.`, text: numbered[2]! };
  return undefined;
}

function joinLines(before: string, after: string): string {
  if (/\p{Ll}-$/u.test(before) && /^\p{Ll}/u.test(after)) return before.slice(0, -1) + after;
  return `${before} ${after}`;
}

function pageText(blocks: Block[], firstLine: Line | undefined): PageText {
  let markdown = '';
  let previous: Block | undefined;
  for (const block of blocks) {
    if (previous) markdown += previous.kind === 'item' && block.kind === 'item' ? '\n' : '\n\n';
    if (block.kind === 'code') markdown += codeBlock(block);
    else if (block.kind === 'heading') markdown += `${'#'.repeat(block.level)} ${block.text}`;
    else if (block.kind === 'item') markdown += `${block.marker} ${block.text}`;
    else markdown += block.text;
    previous = block;
  }
  const heading = blocks.find((b) => b.kind === 'heading');
  return {
    markdown,
    ...(heading ? { firstHeading: heading.text } : {}),
    ...(firstLine ? { firstLine: firstLine.text } : {}),
  };
}

/**
 * A fenced code block: each line indented by its distance from the block's leftmost line in characters, and an empty
 * line for each line step skipped between two of its lines.
 */
function codeBlock(block: Extract<Block, { kind: 'code' }>): string {
  let left = Infinity;
  let steps = Infinity;
  block.lines.forEach((line, i) => {
    left = Math.min(left, line.x);
    if (i > 0) steps = Math.min(steps, block.lines[i - 1]!.y - line.y);
  });
  const lines: string[] = [];
  block.lines.forEach((line, i) => {
    if (i > 0 && steps > 0) {
      const skipped = Math.round((block.lines[i - 1]!.y - line.y) / steps) - 1;
      for (let n = 0; n < skipped; n++) lines.push('');
    }
    lines.push(' '.repeat(Math.max(0, Math.round((line.x - left) / block.charWidth))) + line.text);
  });
  const fence = lines.some((line) => line.includes('```')) ? '~~~' : '```';
  return `${fence}\n${lines.join('\n')}\n${fence}`;
}

// Sizes are compared to the half point: one font size drawn by two scale factors should not count as two.
function roundSize(size: number): number {
  return Math.round(size * 2) / 2;
}
