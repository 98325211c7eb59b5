import { nameTerms } from '@trove/contracts';

/**
 * The `q` of trove_list: words match terms of a record's name (letters and digits, any case), every group must match,
 * `OR` between words or phrases makes a group of alternatives (it binds tighter than the implied AND, as in web
 * search: `bolt OR screw steel` is (bolt or screw) and steel), "quoted phrases" match adjacent terms in order,
 * and a leading `-` excludes a word or phrase. The last plain word also matches as a prefix, as records' own `q` does.
 */
export interface NameQuery {
  /** Every group must match; a group matches when any of its alternatives does. */
  groups: Phrase[][];
  excluded: Phrase[];
}

/** Consecutive terms; `prefix` lets the last one match the start of a term. */
export interface Phrase {
  terms: string[];
  prefix: boolean;
}

interface Token {
  kind: 'word' | 'phrase' | 'or';
  negated: boolean;
  text: string;
}

function tokenize(q: string): Token[] {
  const tokens: Token[] = [];
  const re = /(-?)"([^"]*)"?|(\S+)/g;
  for (const m of q.matchAll(re)) {
    if (m[2] !== undefined) tokens.push({ kind: 'phrase', negated: m[1] === '-', text: m[2] });
    else if (m[3] === 'OR' || m[3] === '|') tokens.push({ kind: 'or', negated: false, text: m[3] });
    else if (m[3]!.startsWith('-') && m[3]!.length > 1) tokens.push({ kind: 'word', negated: true, text: m[3]!.slice(1) });
    else tokens.push({ kind: 'word', negated: false, text: m[3]! });
  }
  return tokens;
}

/** Undefined when the query names no term at all (then it matches nothing). */
export function parseNameQuery(q: string): NameQuery | undefined {
  const tokens = tokenize(q);
  const groups: Phrase[][] = [];
  const excluded: Phrase[] = [];
  let joinNext = false;
  let lastPlain: Phrase | undefined;
  for (const token of tokens) {
    if (token.kind === 'or') {
      joinNext = groups.length > 0;
      continue;
    }
    const phrase: Phrase = { terms: nameTerms(token.text), prefix: false };
    if (phrase.terms.length === 0) continue;
    if (token.negated) {
      excluded.push(phrase);
      joinNext = false;
      continue;
    }
    if (joinNext) groups.at(-1)!.push(phrase);
    else groups.push([phrase]);
    joinNext = false;
    lastPlain = token.kind === 'word' ? phrase : undefined;
  }
  if (groups.length === 0 && excluded.length === 0) return undefined;
  if (lastPlain && tokens.at(-1)?.kind === 'word' && !tokens.at(-1)!.negated) lastPlain.prefix = true;
  return { groups, excluded };
}

function phraseIn(terms: string[], phrase: Phrase): boolean {
  const n = phrase.terms.length;
  for (let i = 0; i + n <= terms.length; i++) {
    let all = true;
    for (let j = 0; j < n; j++) {
      const want = phrase.terms[j]!;
      const have = terms[i + j]!;
      const last = j === n - 1;
      if (!(have === want || (last && phrase.prefix && have.startsWith(want)))) {
        all = false;
        break;
      }
    }
    if (all) return true;
  }
  return false;
}

export function matchesName(query: NameQuery, name: string): boolean {
  const terms = nameTerms(name);
  return query.groups.every((g) => g.some((p) => phraseIn(terms, p))) && !query.excluded.some((p) => phraseIn(terms, p));
}
