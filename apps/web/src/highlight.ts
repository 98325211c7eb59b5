/**
 * A search result's highlight as the server sends it (docs/behaviour/search.md, "Highlights"): text HTML-escaped, each
 * match between `<mark>` and `</mark>`. Read into parts to render as text nodes, so nothing of it is ever parsed as
 * markup by the page.
 */
export interface HighlightPart {
  text: string;
  mark: boolean;
}

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };

function unescape(text: string): string {
  return text.replace(/&(?:amp|lt|gt|quot|#39);/g, (e) => ENTITIES[e]!);
}

export function highlightParts(highlighted: string): HighlightPart[] {
  const parts: HighlightPart[] = [];
  for (const [i, piece] of highlighted.split(/<\/?mark>/).entries()) {
    // Pieces alternate outside and inside the tags: the server never nests them.
    if (piece) parts.push({ text: unescape(piece), mark: i % 2 === 1 });
  }
  return parts;
}

/**
 * The fields worth facets in a sample of a collection's records: those holding only text, numbers or booleans whose
 * values repeat among the records that have them (a category, a size), at most `max`, in the sample's order.
 */
export function facetFields(records: ReadonlyArray<{ collection_data: Record<string, unknown> }>, max = 3): string[] {
  const values = new Map<string, { seen: Set<string>; present: number; scalar: boolean }>();
  for (const record of records) {
    for (const [name, value] of Object.entries(record.collection_data)) {
      const field = values.get(name) ?? { seen: new Set<string>(), present: 0, scalar: true };
      field.present += 1;
      field.scalar &&= ['string', 'number', 'boolean'].includes(typeof value);
      field.seen.add(JSON.stringify(value));
      values.set(name, field);
    }
  }
  return [...values.entries()]
    .filter(([, f]) => f.scalar && f.present > 1 && f.seen.size < f.present)
    .slice(0, max)
    .map(([name]) => name);
}
