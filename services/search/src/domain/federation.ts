import type { FederatedAnswer, SearchAnswer } from '@trove/contracts';

/**
 * A federated multi-search (docs/behaviour/search.md, "Multi-search"): the answers of its queries, each asked for the
 * first `offset + limit` of its matches, merged into one list. Scores are comparable across collections, since every
 * collection scores on one scale (0..1, an identifier or a filter-only match 1.0), so the list is ordered by score,
 * then by name (as one collection orders its ties), collection and record id: one order however the queries were
 * written. Each result says which query found it; a record two queries found appears once, from the first.
 */
export function federate(
  queries: Array<{ collection: string; answer: SearchAnswer }>,
  page: { limit: number; offset: number },
  processingMs: number,
): FederatedAnswer {
  const seen = new Set<string>();
  const merged = queries
    .flatMap(({ answer }, query_index) => answer.results.map((item) => ({ ...item, query_index })))
    .filter((item) => {
      const key = `${item.collection}\u0000${item.record_id}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .sort(
      (a, b) =>
        b.score - a.score || byText(a.name.toLowerCase(), b.name.toLowerCase()) || byText(a.collection, b.collection) || byText(a.record_id, b.record_id),
    );
  const total = queries.reduce((sum, q) => sum + q.answer.metadata.total_estimate, 0);
  const results = merged.slice(page.offset, page.offset + page.limit);
  return {
    results,
    pagination: { offset: page.offset, limit: page.limit, has_more: page.offset + results.length < total },
    metadata: {
      processing_time_ms: processingMs,
      total_estimate: total,
      total_is_estimate: queries.some((q) => q.answer.metadata.total_is_estimate),
      queries: queries.map(({ collection, answer: { metadata, facets } }) => ({
        collection,
        search_mode: metadata.search_mode,
        total_estimate: metadata.total_estimate,
        total_is_estimate: metadata.total_is_estimate,
        ...(facets && { facets }),
      })),
    },
  };
}

function byText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
