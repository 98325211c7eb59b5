import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { TROVE_SCHEMA_TOOL } from '@trove/contracts';
import type { Logger } from '@trove/platform';
import { CUT, table } from '../domain/format';
import { FieldTally, KEYS_PER_RECORD, type FieldSummary } from '../domain/infer';
import { ToolError } from '../domain/tool-error';
import type { Backend } from '../backend';
import { checkCollectionCase, FILTER_GUIDE, registerTool } from './common';

/** Records sampled to infer a schema: the newest ones, read in full. */
export const SCHEMA_SAMPLE = 20;
/** Records read at once: a wide record is counted and dropped before more are read. */
const READ_AT_ONCE = 4;
/** Fields an answer describes, those present in most sampled records first. */
export const SCHEMA_FIELDS = 200;

export interface InferredSchema {
  collection: string;
  recordType?: string;
  sampled: number;
  /** The SCHEMA_FIELDS most frequent fields. */
  fields: FieldSummary[];
  /** Distinct fields found in the sampled records (of each, its first KEYS_PER_RECORD). */
  found: number;
  /** Sampled records with more fields than KEYS_PER_RECORD. */
  wider: number;
}

/** Infers the fields of a collection (optionally one record type) from its newest active records. */
export async function inferSchema(backend: Backend, collectionName: string, type?: string): Promise<InferredSchema> {
  const page = await backend.list({ collection: collectionName, record_type: type, limit: SCHEMA_SAMPLE });
  if (page.items.length === 0) {
    await checkCollectionCase(backend, collectionName);
    throw new ToolError(
      type === undefined
        ? `Collection "${collectionName}" has no active records. Call trove_collections to see the collections.`
        : `Collection "${collectionName}" has no active records of type "${type}". Call trove_collections to see its record types.`,
    );
  }
  const tally = new FieldTally();
  let sampled = 0;
  for (let i = 0; i < page.items.length; i += READ_AT_ONCE) {
    const records = await Promise.all(page.items.slice(i, i + READ_AT_ONCE).map((item) => backend.record(item.id)));
    for (const record of records) {
      if (!record) continue;
      sampled++;
      tally.add(record.collection_data);
    }
  }
  return { collection: collectionName, recordType: type, sampled, fields: tally.top(SCHEMA_FIELDS), found: tally.size, wider: tally.wider };
}

/** What an answer left out of a schema and how to see other fields; undefined when it shows every field. */
export function schemaCutNote(schema: InferredSchema): string | undefined {
  const notes: string[] = [];
  const more = schema.found - schema.fields.length;
  if (more > 0) {
    notes.push(
      `${CUT} ${more} more field${more === 1 ? '' : 's'} not shown (${schema.found} in the sampled records; the ${schema.fields.length} shown are in most of them). ` +
        (schema.recordType === undefined ? 'Ask trove_schema for one record_type to see its fields, or ' : 'To see other fields, ') +
        'read one record with trove_lookup.',
    );
  }
  if (schema.wider > 0) {
    notes.push(`${schema.wider} sampled record${schema.wider === 1 ? ' has' : 's have'} more than ${KEYS_PER_RECORD} fields; only the first ${KEYS_PER_RECORD} of each were looked at.`);
  }
  return notes.length === 0 ? undefined : notes.join(' ');
}

export function fieldsTable(schema: InferredSchema): string {
  if (schema.fields.length === 0) return '(the sampled records have no collection_data fields)';
  const rows = table(
    ['Field', 'Type', 'In sample', 'Sample values'],
    schema.fields.map((f) => [f.field, f.types.join(' or '), `${f.present}/${schema.sampled}`, f.samples.join(' · ')]),
  );
  const note = schemaCutNote(schema);
  return note === undefined ? rows : `${rows}\n\n${note}`;
}

export function registerSchema(server: McpServer, backend: Backend, logger: Logger): void {
  registerTool(server, logger, TROVE_SCHEMA_TOOL, 'Ask trove_schema for one record_type, or read one record with trove_lookup.', async (args) => {
    const [schema, counts] = await Promise.all([
      inferSchema(backend, args.collection, args.record_type),
      backend.aggregate({ collection: args.collection, group_by: 'record_type', filters: {}, stats: [] }),
    ]);
    const types = counts.groups.map((g) => `${String(g.value)} (${g.count})`).join(', ');
    return [
      `Collection "${args.collection}": ${counts.total} searchable records; record types: ${types || 'none indexed yet'}.`,
      `Fields${args.record_type ? ` of record type "${args.record_type}"` : ''}, inferred from the ${schema.sampled} newest records:`,
      '',
      fieldsTable(schema),
      '',
      FILTER_GUIDE,
    ].join('\n');
  });
}
