import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { capAnswer } from '../domain/answer';
import { truncate, yaml } from '../domain/format';
import type { Backend } from '../backend';
import { recordOrFail, recordText } from './lookup';
import { inferSchema, schemaCutNote } from './schema';

function one(value: string | string[] | undefined): string {
  return decodeURIComponent((Array.isArray(value) ? value[0] : value) ?? '');
}

/**
 * Read-only resources: a record (as trove_lookup shows it) and the inferred fields of a collection's record type. Each
 * read is cut to ANSWER_LIMIT as tool answers are.
 */
export function registerResources(server: McpServer, backend: Backend): void {
  server.registerResource(
    'record',
    new ResourceTemplate('record://{record_id}', { list: undefined }),
    { title: 'Record', description: 'One record in full as YAML, as trove_lookup returns it', mimeType: 'application/yaml' },
    async (uri, vars) => {
      const record = await recordOrFail(backend, one(vars.record_id));
      const text = capAnswer(recordText(record, 'yaml'), 'The record is too large to show whole; use trove_lookup, or trove_search filters on its fields.');
      return { contents: [{ uri: uri.href, mimeType: 'application/yaml', text }] };
    },
  );
  server.registerResource(
    'schema',
    new ResourceTemplate('schema://{collection}/{record_type}', { list: undefined }),
    { title: 'Record type schema', description: 'Inferred collection_data field names and types of one record type of a collection', mimeType: 'application/yaml' },
    async (uri, vars) => {
      const schema = await inferSchema(backend, one(vars.collection), one(vars.record_type));
      const body = {
        collection: schema.collection,
        record_type: schema.recordType,
        sampled_records: schema.sampled,
        fields: Object.fromEntries(schema.fields.map((f) => [truncate(f.field, 200), f.types.join(' | ')])),
      };
      const note = schemaCutNote(schema);
      const text = capAnswer(note === undefined ? yaml(body) : `${yaml(body)}\n# ${note}`, 'Read fewer fields with trove_schema for this record type.');
      return { contents: [{ uri: uri.href, mimeType: 'application/yaml', text }] };
    },
  );
}
