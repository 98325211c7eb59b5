/**
 * Graded relevance: the Cranfield collection (1,400 abstracts of aeronautics papers, 225 questions, each judged
 * against the papers an expert found relevant, graded 1 to 4), scored by nDCG@10 for Trove and for a reference BM25
 * library (wink-bm25-text-search) over the same fields in the same run.
 *
 * The files are the collection as it is distributed for research (bench/collections/cranfield, gzipped): cran.all.1400
 * (.I id, .T title, .A authors, .B bibliography, .W abstract), cran.qry (.I number, .W question: the numbers skip,
 * and the judgments number the questions 1 to 225 in file order) and cranqrel (question, paper, grade). Grades 1
 * (a complete answer) to 4 (of minimum interest) gain 4 to 1; -1 (no interest) and unjudged papers gain nothing.
 *
 * A paper becomes a record as a user would load it: name = title, description = abstract, collection_data = the
 * authors, the bibliography and the paper's number. The reference indexes title and abstract (weights 1 and 1, the
 * library's k1 1.2 and b 0.75), with Trove's own reading of words (classify.ts's queryWords) and its stop words left
 * out, as Trove's natural-language queries leave them out: the comparison is of ranking, not of tokenising.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import bm25 from 'wink-bm25-text-search';
import { queryWords, STOP_WORDS } from '@trove/search-engine';

export interface Paper {
  id: string;
  title: string;
  abstract: string;
  authors: string;
  bibliography: string;
}

export interface Question {
  /** 1..225, as the judgments number it. */
  n: number;
  text: string;
  /** Paper id to gain (4 for grade 1 .. 1 for grade 4). */
  gains: Map<string, number>;
}

const DIR = join(__dirname, '..', 'collections', 'cranfield');
const read = (file: string) => gunzipSync(readFileSync(join(DIR, `${file}.gz`))).toString('utf8');

/** The collection's `.X` sections of each entry, entries starting at `.I`. */
function entries(text: string): Array<{ id: string; fields: Record<string, string> }> {
  const out: Array<{ id: string; fields: Record<string, string> }> = [];
  let current: { id: string; fields: Record<string, string> } | undefined;
  let field = '';
  for (const line of text.split('\n')) {
    const marker = /^\.([ITABW])\b ?(.*)$/.exec(line);
    if (marker?.[1] === 'I') {
      current = { id: marker[2]!.trim(), fields: {} };
      out.push(current);
    } else if (marker) {
      field = marker[1]!;
    } else if (current) {
      current.fields[field] = `${current.fields[field] ?? ''} ${line.trim()}`.trim();
    }
  }
  return out;
}

/** A title or abstract as written, without the collection's spaced full stops (" ."). */
const tidy = (text: string | undefined) => (text ?? '').replace(/\s+\./g, '.').replace(/\s+,/g, ',').trim();

export function papers(): Paper[] {
  return entries(read('cran.all.1400')).map((e) => ({
    id: e.id,
    title: tidy(e.fields.T).replace(/\.$/, ''),
    abstract: tidy(e.fields.W),
    authors: tidy(e.fields.A),
    bibliography: tidy(e.fields.B),
  }));
}

export function questions(): Question[] {
  const gains = new Map<number, Map<string, number>>();
  for (const line of read('cranqrel').split('\n')) {
    const [q, paper, grade] = line.trim().split(/\s+/).map(Number);
    if (!q || !paper || grade === undefined || grade < 1 || grade > 4) continue;
    const judged = gains.get(q) ?? new Map<string, number>();
    judged.set(String(paper), 5 - grade);
    gains.set(q, judged);
  }
  return entries(read('cran.qry')).map((e, i) => ({ n: i + 1, text: tidy(e.fields.W), gains: gains.get(i + 1) ?? new Map() }));
}

/** nDCG@10 of a ranked list of paper ids (linear gains, log2 discounts; the ideal from every judged paper). */
export function ndcgAt10(ranked: string[], gains: Map<string, number>): number | undefined {
  const dcg = (gs: number[]) => gs.slice(0, 10).reduce((sum, g, i) => sum + g / Math.log2(i + 2), 0);
  const ideal = dcg([...gains.values()].sort((a, b) => b - a));
  if (ideal === 0) return undefined;
  return dcg(ranked.map((id) => gains.get(id) ?? 0)) / ideal;
}

/** Words as Trove reads them, its stop words left out. */
const contentWords = (text: string) => queryWords(text).filter((w) => !STOP_WORDS.has(w));

/** The reference: wink-bm25-text-search over title and abstract. Returns a question's first ten paper ids. */
export function reference(all: Paper[]): (question: string) => string[] {
  const engine = bm25();
  engine.defineConfig({ fldWeights: { title: 1, abstract: 1 }, bm25Params: { k1: 1.2, b: 0.75, k: 1 } });
  engine.definePrepTasks([contentWords]);
  all.forEach((p) => engine.addDoc({ title: p.title, abstract: p.abstract }, p.id));
  engine.consolidate();
  return (question) => engine.search(question, 10).map(([id]) => String(id));
}
