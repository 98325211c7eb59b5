import { ResourceTemplate, type McpServer, type ReadResourceTemplateCallback } from '@modelcontextprotocol/sdk/server/mcp.js';
import { MCP_RECORD_RESOURCE, MCP_SCHEMA_RESOURCE, type McpResourceTemplate } from '@trove/contracts';
import { capAnswer } from '../domain/answer';
import { truncate, yaml } from '../domain/format';
import type { Backend } from '../backend';
import { recordOrFail, recordText } from './lookup';
import { inferSchema, schemaCutNote } from './schema';

function one(value: string | string[] | undefined): string {
  return decodeURIComponent((Array.isArray(value) ? value[0] : value) ?? '');
}

/** Registers a resource template from its declaration in @trove/contracts; its reads are not listed. */
function registerTemplate(server: McpServer, resource: McpResourceTemplate, read: ReadResourceTemplateCallback): void {
  const { name, uriTemplate, ...metadata } = resource;
  server.registerResource(name, new ResourceTemplate(uriTemplate, { list: undefined }), metadata, read);
}

/**
 * Read-only resources: a record (as trove_lookup shows it) and the inferred fields of a collection's record type. Each
 * read is cut to ANSWER_LIMIT as tool answers are.
 */
export function registerResources(server: McpServer, backend: Backend): void {
  registerTemplate(server, MCP_RECORD_RESOURCE, async (uri, vars) => {
    const record = await recordOrFail(backend, one(vars.record_id));
    const text = capAnswer(recordText(record, 'yaml'), 'The record is too large to show whole; use trove_lookup, or trove_search filters on its fields.');
    return { contents: [{ uri: uri.href, mimeType: MCP_RECORD_RESOURCE.mimeType, text }] };
  });
  registerTemplate(server, MCP_SCHEMA_RESOURCE, async (uri, vars) => {
    const schema = await inferSchema(backend, one(vars.collection), one(vars.record_type));
    const body = {
      collection: schema.collection,
      record_type: schema.recordType,
      sampled_records: schema.sampled,
      fields: Object.fromEntries(schema.fields.map((f) => [truncate(f.field, 200), f.types.join(' | ')])),
    };
    const note = schemaCutNote(schema);
    const text = capAnswer(note === undefined ? yaml(body) : `${yaml(body)}\n# ${note}`, 'Read fewer fields with trove_schema for this record type.');
    return { contents: [{ uri: uri.href, mimeType: MCP_SCHEMA_RESOURCE.mimeType, text }] };
  });
}
