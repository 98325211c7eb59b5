import { AGGREGATE_GROUP_LIMIT } from '@trove/contracts';
import { sql, type Kysely } from '@trove/db';
import type { AggregateQuery, AggregateResult, CollectionGroup, FieldStats, Filter, Scalar } from '../port';
import { whereClause } from './filters';
import type { Fragment } from './rows';

/**
 * Aggregation in the PostgreSQL engine: a scope's matching documents counted, grouped by a field and summarised
 * (aggregate()), and the public index's collections counted across tenants (publicCollections()).
 */

export class Aggregation {
  constructor(private readonly db: Kysely<any>) {}

  /** The scope's matches counted, grouped by `group_by` and summarised over the `stats` fields (at most 5). */
  async aggregate(query: AggregateQuery): Promise<AggregateResult> {
    const where = whereClause(query.scope, query.filters);
    const fields = [...new Set(query.stats ?? [])].slice(0, 5);
    const numeric = (field: string) =>
      sql`case when jsonb_typeof(d.data -> ${field}) = 'number' then (d.data ->> ${field})::float8 end`;
    const statColumns = fields.map(
      (field, i) =>
        sql`count(${numeric(field)}) as ${sql.raw(`c${i}`)}, min(${numeric(field)}) as ${sql.raw(`mn${i}`)},
            max(${numeric(field)}) as ${sql.raw(`mx${i}`)}, avg(${numeric(field)}) as ${sql.raw(`av${i}`)}`,
    );
    const totals = sql<Record<string, number | null>>`
      select ${sql.join([sql`count(*) as total`, ...statColumns])} from search_engine.documents d where ${where}`.execute(
      this.db,
    );
    const groups = query.group_by ? this.groups(where, query.group_by) : Promise.resolve([]);
    const [row, grouped] = await Promise.all([totals.then((r) => r.rows[0]!), groups]);
    const stats: Record<string, FieldStats> = {};
    fields.forEach((field, i) => {
      const count = Number(row[`c${i}`] ?? 0);
      stats[field] = {
        count,
        min: count ? Number(row[`mn${i}`]) : null,
        max: count ? Number(row[`mx${i}`]) : null,
        avg: count ? Number(row[`av${i}`]) : null,
      };
    });
    return { total: Number(row.total), groups: grouped, stats };
  }

  /** The AGGREGATE_GROUP_LIMIT most frequent values of `field` among the matches, ties by value. */
  private async groups(where: Fragment, field: string): Promise<Array<{ value: Scalar; count: number }>> {
    // A document counts once per distinct value; an array counts once per distinct element.
    const values =
      field === 'record_type' || field === 'collection'
        ? sql`select to_jsonb(${sql.ref(`d.${field}`)}) as value`
        : sql`select distinct e.value from jsonb_array_elements(
            case when jsonb_typeof(d.data -> ${field}) = 'array' then d.data -> ${field}
            else jsonb_build_array(d.data -> ${field}) end) e(value)`;
    const result = await sql<{ value: Scalar; count: number }>`
      select v.value, count(*)::int as count
      from search_engine.documents d cross join lateral (${values}) v
      where ${where} and jsonb_typeof(v.value) in ('string', 'number', 'boolean')
      group by v.value order by count(*) desc, v.value limit ${AGGREGATE_GROUP_LIMIT}`.execute(this.db);
    return result.rows.map((r) => ({ value: r.value, count: Number(r.count) }));
  }

  /** The public index's largest collections among the documents matching `filters`, with their record types. */
  async publicCollections(filters: Filter[]): Promise<CollectionGroup[]> {
    const where = whereClause({ kind: 'public' }, filters);
    const result = await sql<{ collection: string; total: number; record_type: string; n: number }>`
      with pairs as (
        select d.collection, d.record_type, count(*)::int as n
        from search_engine.documents d where ${where} group by d.collection, d.record_type),
      top as (
        select collection, sum(n)::int as total from pairs group by collection
        order by total desc, collection collate "C" limit ${AGGREGATE_GROUP_LIMIT})
      select t.collection, t.total, p.record_type, p.n
      from top t join pairs p on p.collection = t.collection
      order by t.total desc, t.collection collate "C", p.n desc, p.record_type collate "C"`.execute(this.db);
    const groups: CollectionGroup[] = [];
    for (const row of result.rows) {
      let group = groups.at(-1);
      if (group?.collection !== row.collection) {
        group = { collection: row.collection, count: Number(row.total), record_types: [] };
        groups.push(group);
      }
      if (group.record_types.length < AGGREGATE_GROUP_LIMIT) group.record_types.push({ value: row.record_type, count: Number(row.n) });
    }
    return groups;
  }
}
