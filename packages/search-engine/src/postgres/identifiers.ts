import { sql } from '@trove/db';
import { detectIdentifier, editionBases, normaliseIdentifier } from '../identifiers';
import type { SearchQuery } from '../port';
import { NAME_ORDER, sortOrder, whereClause } from './filters';
import type { Listing } from './listing';
import { textArray, type Found, type Page } from './rows';

/**
 * Identifier queries in the PostgreSQL engine: exact matches on the normalised identifiers (see ../identifiers.ts) that
 * writes.ts stores in the `identifiers` column, each scoring 1.0 and listed (listing.ts) by name, then record_id, as in
 * Elasticsearch. A query naming an edition of a standard also finds the base standard, whose hits score
 * EDITION_BASE_SCORE and follow the edition's.
 */

/** The score of a base standard found by a query naming one of its editions (the edition itself scores 1.0). */
const EDITION_BASE_SCORE = 0.9;

export class IdentifierSearch {
  constructor(private readonly listing: Listing) {}

  async search(query: SearchQuery, text: NonNullable<SearchQuery['text']>, page: Page): Promise<Found> {
    const where = whereClause(query.scope, query.filters);
    const identifiers = text.identifiers.length
      ? text.identifiers.map(normaliseIdentifier)
      : (detectIdentifier(text.query) ?? [normaliseIdentifier(text.query)]);
    const bases = editionBases(text.query).filter((b) => !identifiers.includes(b));
    const exact = sql`d.identifiers && ${textArray(identifiers)}::text[]`;
    if (bases.length > 0) {
      // An edition's query also finds the base standard, scoring EDITION_BASE_SCORE below the edition's 1.0.
      const match = sql`${where} and d.identifiers && ${textArray([...identifiers, ...bases])}::text[]`;
      const score = sql`case when ${exact} then 1.0 else ${sql.lit(EDITION_BASE_SCORE)} end`;
      const order = query.sort ? sql`${sortOrder(query.sort)}, score desc, ${NAME_ORDER}` : sql`score desc, ${NAME_ORDER}`;
      return this.listing.listed(match, order, page, query, score);
    }
    // Every hit scores 1.0, so ties go by name, then record_id: an order the data decides, not the ids a load
    // happened to draw (record_id order changed from one load of the same data to the next).
    const order = query.sort ? sql`${sortOrder(query.sort)}, ${NAME_ORDER}` : NAME_ORDER;
    return this.listing.listed(sql`${where} and ${exact}`, order, page, query);
  }
}
