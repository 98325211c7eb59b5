import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { yaml } from '../domain/format';
import type { Backend } from '../upstreams';
import { recordOrFail, recordView } from './lookup';
import { inferSchema } from './schema';

function one(value: string | string[] | undefined): string {
  return decodeURIComponent((Array.isArray(value) ? value[0] : value) ?? '');
}

/** Read-only resources: a record (as trove_lookup shows it) and the inferred fields of a collection's record type. */
export function registerResources(server: McpServer, backend: Backend): void {
  server.registerResource(
    'record',
    new ResourceTemplate('record://{record_id}', { list: undefined }),
    { title: 'Record', description: 'One record in full as YAML, as trove_lookup returns it', mimeType: 'application/yaml' },
    async (uri, vars) => {
      const record = await recordOrFail(backend, one(vars.record_id));
      return { contents: [{ uri: uri.href, mimeType: 'application/yaml', text: yaml(recordView(record)) }] };
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
        fields: Object.fromEntries(schema.fields.map((f) => [f.field, f.types.join(' | ')])),
      };
      return { contents: [{ uri: uri.href, mimeType: 'application/yaml', text: yaml(body) }] };
    },
  );
}
