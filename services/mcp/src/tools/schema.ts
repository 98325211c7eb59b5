import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Logger } from '@trove/platform';
import { z } from 'zod';
import { table } from '../domain/format';
import { inferFields, type FieldSummary } from '../domain/infer';
import { ToolError } from '../domain/tool-error';
import type { Backend, FullRecord } from '../upstreams';
import { collection, FILTER_GUIDE, guarded } from './common';

/** Records sampled to infer a schema: the newest ones, read in full. */
export const SCHEMA_SAMPLE = 20;

export const recordType = z
  .string({ error: 'record_type must be a string' })
  .trim()
  .min(1, { error: 'record_type must not be empty' })
  .max(100, { error: 'record_type must be at most 100 characters' })
  .describe('Record type within the collection, as trove_collections lists it (e.g. "product")');

export interface InferredSchema {
  collection: string;
  recordType?: string;
  sampled: number;
  fields: FieldSummary[];
}

/** Infers the fields of a collection (optionally one record type) from its newest active records. */
export async function inferSchema(backend: Backend, collectionName: string, type?: string): Promise<InferredSchema> {
  const page = await backend.list({ collection: collectionName, record_type: type, limit: SCHEMA_SAMPLE });
  if (page.items.length === 0) {
    throw new ToolError(
      type === undefined
        ? `Collection "${collectionName}" has no active records. Call trove_collections to see the collections.`
        : `Collection "${collectionName}" has no active records of type "${type}". Call trove_collections to see its record types.`,
    );
  }
  const records = (await Promise.all(page.items.map((item) => backend.record(item.id)))).filter((r): r is FullRecord => r !== undefined);
  return { collection: collectionName, recordType: type, sampled: records.length, fields: inferFields(records.map((r) => r.collection_data)) };
}

export function fieldsTable(schema: InferredSchema): string {
  if (schema.fields.length === 0) return '(the sampled records have no collection_data fields)';
  return table(
    ['Field', 'Type', 'In sample', 'Sample values'],
    schema.fields.map((f) => [f.field, f.types.join(' or '), `${f.present}/${schema.sampled}`, f.samples.join(' · ')]),
  );
}

export function registerSchema(server: McpServer, backend: Backend, logger: Logger): void {
  server.registerTool(
    'trove_schema',
    {
      title: 'Describe a collection',
      description:
        'Shows the fields of a collection\'s records (collection_data): field names, inferred types (string, integer, ' +
        'number, boolean, date, array, object) and up to 4 sample values each, plus the record types and counts and a ' +
        'guide to the filter syntax. Call it before trove_search, trove_aggregate or trove_list with filters.',
      inputSchema: { collection, record_type: recordType.optional() },
      annotations: { readOnlyHint: true },
    },
    guarded<{ collection: string; record_type?: string }>(logger, 'trove_schema', async (args) => {
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
    }),
  );
}
