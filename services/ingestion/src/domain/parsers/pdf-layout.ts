/** A piece of text on a page as pdf.js reports it: its baseline start (PDF units, y up), width and font size. */
export interface TextRun {
  text: string;
  x: number;
  y: number;
  width: number;
  size: number;
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
}

type Block =
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

/**
 * Lays out the text of a whole document as markdown, one string per page. The body size, heading sizes and line
 * step are measured over all pages so that a page is read by the same rules as the others:
 *
 * - lines: runs whose baselines lie within half a font size of each other, read left to right, with a space where
 *   the gap between two runs is wider than a sixth of the font size;
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
    let text = '';
    let end = -Infinity;
    for (const run of group) {
      if (text !== '' && run.x - end > run.size / 6 && !/\s$/.test(text) && !/^\s/.test(run.text)) text += ' ';
      text += run.text;
      end = Math.max(end, run.x + run.width);
    }
    text = text.replace(/\s+/g, ' ').trim();
    const visible = group.filter((run) => run.text.trim() !== '');
    if (text === '' || visible.length === 0) continue;
    lines.push({ text, ...extent(visible) });
  }
  return lines;
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
    if (block.kind === 'heading') markdown += `${'#'.repeat(block.level)} ${block.text}`;
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

// Sizes are compared to the half point: one font size drawn by two scale factors should not count as two.
function roundSize(size: number): number {
  return Math.round(size * 2) / 2;
}
