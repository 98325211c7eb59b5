/**
 * Typo tolerance, the rules both engines follow (as Meilisearch and Typesense users expect them): a query word of
 * letters only tolerates one typo from 5 characters and two from 9, where a typo is an insertion, a deletion, a
 * substitution or a transposition of two adjacent letters (Damerau-Levenshtein, optimal string alignment). Words of 4
 * letters tolerate one transposition only ("blot" finds "bolt"; Meilisearch would allow nothing at 4 letters, but a
 * swapped pair is the commonest slip of a fast typist and leaves every letter in place, so it rarely lands on another
 * real word). Shorter words and words holding digits (sizes, part numbers) must match as typed. A document matched only
 * through a typo ranks below one matching the words as typed.
 */

const LETTERS_ONLY = /^\p{L}+$/u;

/** Words a collection's documents hold that typo tolerance may lead to: letters only, 4 to 40 of them. */
export function isVocabularyWord(word: string): boolean {
  return word.length >= 4 && word.length <= 40 && LETTERS_ONLY.test(word);
}

/**
 * From how many letters a query word tolerates one typo and two: the defaults above, or a collection's typo_tolerance
 * settings. A word of 4 letters or more but fewer than `one` tolerates one transposition only.
 */
export interface TypoRules {
  one: number;
  two: number;
}

export const DEFAULT_TYPO_RULES: TypoRules = { one: 5, two: 9 };

/** How many typos a query word tolerates: 0, 1 (transposition only below `rules.one` letters) or 2. */
export function typoBudget(word: string, rules: TypoRules = DEFAULT_TYPO_RULES): number {
  if (!isVocabularyWord(word)) return 0;
  return word.length >= rules.two ? 2 : 1;
}

/** Whether `candidate` is within the query word's typo budget (and is not the word itself). */
export function withinTypos(word: string, candidate: string, rules: TypoRules = DEFAULT_TYPO_RULES): boolean {
  if (candidate === word) return false;
  const budget = typoBudget(word, rules);
  if (budget === 0) return false;
  if (word.length < rules.one) return transpositions(word).includes(candidate);
  return Math.abs(candidate.length - word.length) <= budget && typoDistance(word, candidate, budget) <= budget;
}

/** The words one adjacent transposition away. */
export function transpositions(word: string): string[] {
  const out = new Set<string>();
  for (let i = 0; i + 1 < word.length; i++) {
    if (word[i] === word[i + 1]) continue;
    out.add(word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2));
  }
  return [...out];
}

/** Letters a substitution or insertion may bring in: a-z, the word's own, and the accented ones of our catalogues. */
const ALPHABET = 'abcdefghijklmnopqrstuvwxyzäöüßéèêàáâçñåøæ';

/**
 * Every word one typo away (the words a 5-8 letter query word may be a typo of), for an exact lookup: a few hundred
 * strings, where a similarity search would miss short words (a transposition shares few trigrams).
 */
export function oneTypoAway(word: string, rules: TypoRules = DEFAULT_TYPO_RULES): string[] {
  if (word.length < rules.one) return transpositions(word);
  const letters = [...new Set(ALPHABET + word)];
  const out = new Set<string>(transpositions(word));
  for (let i = 0; i <= word.length; i++) {
    const head = word.slice(0, i);
    const tail = word.slice(i);
    if (i < word.length) out.add(head + tail.slice(1));
    for (const c of letters) {
      out.add(head + c + tail);
      if (i < word.length) out.add(head + c + tail.slice(1));
    }
  }
  out.delete(word);
  return [...out].filter(isVocabularyWord);
}

/** Optimal string alignment distance, or more than `max` as soon as it must exceed it. */
export function typoDistance(a: string, b: string, max = Infinity): number {
  const n = a.length;
  const m = b.length;
  if (Math.abs(n - m) > max) return max + 1;
  let prev2 = new Array<number>(m + 1).fill(0);
  let prev = Array.from({ length: m + 1 }, (_, j) => j);
  for (let i = 1; i <= n; i++) {
    const row = new Array<number>(m + 1);
    row[0] = i;
    let best = row[0];
    for (let j = 1; j <= m; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, prev2[j - 2]! + 1);
      row[j] = d;
      if (d < best) best = d;
    }
    if (best > max) return max + 1;
    prev2 = prev;
    prev = row;
  }
  return prev[m]!;
}
