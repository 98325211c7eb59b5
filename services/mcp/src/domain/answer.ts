import { COMPACT_BUDGET, CUT, type Cuts } from './format';

/**
 * The most text one MCP answer (a tool result or a resource read) carries, in UTF-8 bytes: about 16,000 tokens, a
 * large but bearable share of a model's context. Tools shape their answers to stay well below it; this is the
 * backstop for whatever they did not foresee.
 */
export const ANSWER_LIMIT = 64 * 1024;

/** Room kept at the end of a cut answer for the note saying what was left out. */
const NOTE_ROOM = 1_024;

export function byteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/**
 * The text, or when it is larger than ANSWER_LIMIT its start (at a line break when one is near) followed by a note
 * saying how much was left out and, in `narrow`, how to ask for less.
 */
export function capAnswer(text: string, narrow: string): string {
  if (byteLength(text) <= ANSWER_LIMIT) return text;
  let head = Buffer.from(text, 'utf8')
    .subarray(0, ANSWER_LIMIT - NOTE_ROOM)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
  const lineEnd = head.lastIndexOf('\n');
  if (lineEnd > head.length * 0.75) head = head.slice(0, lineEnd);
  const rest = text.slice(head.length);
  const lines = rest.split('\n').length - (rest.startsWith('\n') ? 1 : 0);
  const note = `${CUT} Answer cut at ${ANSWER_LIMIT / 1024} KB: ${lines} more line${lines === 1 ? '' : 's'} (${rest.length} characters) left out. ${narrow}`;
  return `${head}\n\n${note.length > NOTE_ROOM - 8 ? `${note.slice(0, NOTE_ROOM - 9)}${CUT}` : note}`;
}

/** What compact left out, in words, or undefined when it left nothing out. */
export function describeCuts(cuts: Cuts): string | undefined {
  const parts: string[] = [];
  if (cuts.fields > 0) parts.push(`${cuts.fields} field${cuts.fields === 1 ? '' : 's'}`);
  if (cuts.items > 0) parts.push(`${cuts.items} list item${cuts.items === 1 ? '' : 's'}`);
  if (cuts.values > 0) parts.push(`the rest of ${cuts.values} long value${cuts.values === 1 ? '' : 's'}`);
  return parts.length === 0 ? undefined : `${parts.join(', ')} left out (marked ${CUT})`;
}

/**
 * Renders with a compaction budget, halving it until the text fits in an answer with room to spare: escaping (JSON's
 * `\n`, YAML's quotes) and characters of several bytes can make text longer than the characters the budget counts.
 */
export function fitted(render: (budget: number) => string): string {
  let text = render(COMPACT_BUDGET);
  for (let budget = COMPACT_BUDGET / 2; byteLength(text) > ANSWER_LIMIT - NOTE_ROOM && budget >= 1_000; budget /= 2) text = render(budget);
  return text;
}
