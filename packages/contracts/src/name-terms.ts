/**
 * Name search works on terms: runs of letters and digits, lower-cased. Records tokenises a record's name and the `q`
 * of a listing with it, and MCP the `q` of trove_list, so every side agrees whatever the database's locale or a text
 * search parser would make of punctuation (`M8x20`, `DIN-933`, `steel/zinc`).
 */
export function nameTerms(text: string): string[] {
  return text.normalize('NFKC').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}
