import { createHash } from 'node:crypto';
import { sql } from 'kysely';

const MARK = '/* prepared */';

/**
 * Put first in a statement, marks it as one to prepare: on the PostgreSQL server each connection parses it once and
 * runs it by name afterwards. Its plan is still made for each run's values (the pool's connections run with
 * plan_cache_mode force_custom_plan), so it only saves parsing. For a statement run often whose text stays the same
 * while its parameters change. PGlite runs it as any other statement.
 */
export const prepared = sql.raw(`${MARK} `);

/** Prepared statements' names by their text; past this many texts, more are run unnamed (unprepared). */
const MAX_NAMED = 500;
const names = new Map<string, string>();

/** The name a marked statement is prepared under on every connection, or undefined for an unmarked one. */
export function preparedName(text: string): string | undefined {
  if (!text.startsWith(MARK)) return undefined;
  let name = names.get(text);
  if (name === undefined && names.size < MAX_NAMED) {
    name = `trove_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
    names.set(text, name);
  }
  return name;
}
