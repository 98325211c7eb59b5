/**
 * Edits between two words (insert, delete, substitute, or swap two neighbours: a transposition is one typo, as in
 * `fliters`), compared without case.
 */
function editDistance(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  const d: number[][] = Array.from({ length: s.length + 1 }, (_, i) => Array.from({ length: t.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= s.length; i++) {
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[s.length]![t.length]!;
}

/** A name with its separators dropped, so `groupBy`, `group-by` and `groupby` all read as `group_by`. */
function bare(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/**
 * The candidate a mistyped name most likely meant, or undefined when none is close: at most one edit for names of up
 * to 4 characters, two for longer ones, and fewer edits than the shorter name has characters (so `x` is not read as
 * `q`); separators and case are not counted. Failing that, the one name that has the given name as a word.
 */
export function closestName(name: string, candidates: readonly string[]): string | undefined {
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = editDistance(bare(name), bare(candidate));
    if (!best || distance < best.distance) best = { candidate, distance };
  }
  if (!best) return undefined;
  const [a, b] = [bare(name).length, bare(best.candidate).length];
  const allowed = Math.min(Math.max(a, b) <= 4 ? 1 : 2, Math.min(a, b) - 1);
  if (best.distance <= allowed) return best.candidate;
  // A word of a longer name given alone: `id` for record_id, `type` for record_type.
  const wordOf = candidates.filter((c) => c.toLowerCase().split('_').includes(bare(name)));
  return wordOf.length === 1 ? wordOf[0] : undefined;
}
