/**
 * A search result item as the specification lists it; private results also carry `description`, Open results do
 * not. The search service answers it, and the Open API and MCP pass it on.
 */
export interface SearchResultItem {
  record_id: string;
  name: string;
  score: number;
  collection: string;
  record_type: string;
  collection_data: Record<string, unknown>;
  description_llm: string;
  description: string | null;
  source_type: string;
  updated_at: string;
}
