import { z } from 'zod';
import { mcpToolSchemaName, referenceDocument } from './api';
import { MCP_RESOURCES, MCP_TOOLS } from './mcp-tools';

type Document = {
  tags: Array<{ name: string; description?: string }>;
  components: { schemas: Record<string, Record<string, unknown>> };
};

const all = referenceDocument('all') as Document;
const mcpTag = all.tags.find((t) => t.name === 'mcp')!;

/** A declaration's input schema as JSON Schema 2020-12, as a client sends its arguments. */
function declared(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io: 'input', target: 'draft-2020-12' });
  return json;
}

describe('the MCP tools in the API reference', () => {
  it('holds each declared tool input schema as a component schema, equal to the JSON Schema of its declaration', () => {
    for (const tool of MCP_TOOLS) expect([tool.name, all.components.schemas[mcpToolSchemaName(tool.name)]]).toEqual([tool.name, declared(tool.inputSchema)]);
    const listed = Object.keys(all.components.schemas).filter((name) => name.startsWith('McpTool_'));
    expect(listed.sort()).toEqual(MCP_TOOLS.map((t) => mcpToolSchemaName(t.name)).sort());
  });

  it('describes every tool in the mcp tag: its name, title, whether it is read-only, its input schema and its description', () => {
    const rows = mcpTag.description!.split('\n').filter((line) => line.startsWith('| `trove_'));
    expect(rows).toHaveLength(MCP_TOOLS.length);
    MCP_TOOLS.forEach((tool, n) => {
      const readOnly = tool.annotations.readOnlyHint ? 'yes' : 'no';
      expect(rows[n]).toBe(`| \`${tool.name}\` | ${tool.title} | ${readOnly} | \`${mcpToolSchemaName(tool.name)}\` | ${tool.description} |`);
    });
  });

  it('says how to connect and lists every resource template', () => {
    const description = mcpTag.description!;
    for (const words of ['`POST /mcp`', 'Streamable HTTP', 'statelessly', '`search` scope', 'Authorization: Bearer <key>']) expect(description).toContain(words);
    for (const resource of MCP_RESOURCES) expect(description).toContain(`| \`${resource.uriTemplate}\` | ${resource.title} | ${resource.mimeType} | ${resource.description} |`);
  });

  it('declares each tool once, under a name of its own, with closed arguments', () => {
    expect(new Set(MCP_TOOLS.map((t) => t.name)).size).toBe(MCP_TOOLS.length);
    for (const tool of MCP_TOOLS) expect([tool.name, declared(tool.inputSchema).additionalProperties]).toEqual([tool.name, false]);
  });

});
