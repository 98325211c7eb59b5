import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { MCP_RESOURCES, MCP_TOOLS, mcpToolSchemaName, referenceDocument } from '@trove/contracts';

/** What the MCP cases need of a system: in process (services/mcp/test) or the whole system behind the gateway. */
export interface McpHarness {
  /** An MCP client (the official SDK's, over Streamable HTTP) acting for one tenant. */
  connect(tenantId: string): Promise<Client>;
  /** Creates a record for a tenant; answers once search has indexed it. */
  create(tenantId: string, body: Record<string, unknown>): Promise<{ id: string }>;
  /** The status a plain GET or DELETE on the MCP endpoint gets for a tenant. */
  status(method: 'GET' | 'DELETE', tenantId: string): Promise<number>;
  stop(): Promise<void>;
}

/** The text of a tool result. */
export function textOf(result: unknown): string {
  return ((result as CallToolResult).content ?? []).map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

/** Every MCP case, written once and run in process and through the gateway. */
export function mcpRules(start: () => Promise<McpHarness>, newTenant: () => string): void {
  let sys: McpHarness;
  let client: Client;
  const tenant = newTenant();
  const other = newTenant();
  let boltId: string;
  let draftId: string;
  let foreignId: string;

  const long = 'x'.repeat(5_000);

  beforeAll(async () => {
    sys = await start();
    boltId = (
      await sys.create(tenant, {
        name: 'Hex bolt M8x40 stainless steel',
        collection: 'fasteners',
        record_type: 'product',
        collection_data: { material: 'stainless steel', price: 0.42, ean: '4006381333931', standard: 'DIN 933', in_stock: true, notes: long },
      })
    ).id;
    await sys.create(tenant, {
      name: 'Hex nut M8 zinc plated',
      collection: 'fasteners',
      record_type: 'product',
      collection_data: { material: 'zinc plated steel', price: 0.08, standard: 'DIN 934', in_stock: true },
    });
    await sys.create(tenant, {
      name: 'Countersunk screw M6x20 brass',
      collection: 'fasteners',
      record_type: 'product',
      collection_data: { material: 'brass', price: 0.3, standard: 'DIN 7991', in_stock: false },
    });
    await sys.create(tenant, { name: 'Fastener torque guide', collection: 'fasteners', record_type: 'manual', collection_data: { pages: 12 } });
    draftId = (await sys.create(tenant, { name: 'Hex bolt M10 prototype', collection: 'fasteners', record_type: 'product', status: 'draft', collection_data: { material: 'titanium' } })).id;
    foreignId = (await sys.create(other, { name: 'Hex bolt of another tenant', collection: 'fasteners', record_type: 'product', collection_data: { material: 'secret alloy' } })).id;
    client = await sys.connect(tenant);
  }, 60_000);

  afterAll(async () => {
    await sys?.stop();
  });

  const call = async (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args });

  describe('the MCP endpoint', () => {
    it('lists the six tools with descriptions and input schemas, and both resource templates', async () => {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(['trove_aggregate', 'trove_collections', 'trove_list', 'trove_lookup', 'trove_schema', 'trove_search']);
      for (const tool of tools) {
        expect(tool.description!.length).toBeGreaterThan(80);
        expect(tool.inputSchema.type).toBe('object');
      }
      const search = tools.find((t) => t.name === 'trove_search')!;
      expect(search.inputSchema.required).toEqual(['collection']);
      const { resourceTemplates } = await client.listResourceTemplates();
      expect(resourceTemplates.map((t) => t.uriTemplate).sort()).toEqual(['record://{record_id}', 'schema://{collection}/{record_type}']);
    });

    it('lists exactly the declared tools and resource templates, each input schema the one the API reference holds', async () => {
      const { components } = referenceDocument('all') as { components: { schemas: Record<string, unknown> } };
      const { tools } = await client.listTools();
      // The SDK writes JSON Schema draft-07 and the reference 2020-12; for these schemas only the $schema they name differs.
      expect(tools.map(({ name, title, description, annotations, inputSchema: { $schema: _dialect, ...inputSchema } }) => ({ name, title, description, annotations, inputSchema }))).toEqual(
        MCP_TOOLS.map((t) => ({ name: t.name, title: t.title, description: t.description, annotations: t.annotations, inputSchema: components.schemas[mcpToolSchemaName(t.name)] })),
      );
      const { resourceTemplates } = await client.listResourceTemplates();
      expect(resourceTemplates).toEqual(MCP_RESOURCES);
    });

    it('answers GET and DELETE with 405, as a stateless server', async () => {
      expect(await sys.status('GET', tenant)).toBe(405);
      expect(await sys.status('DELETE', tenant)).toBe(405);
    });

    it('trove_collections lists the collection with record types and counts', async () => {
      const text = textOf(await call('trove_collections', {}));
      expect(text).toContain('| fasteners | product (3), manual (1) | 4 | product |');
      expect(textOf(await call('trove_collections', { category: 'manual' }))).toContain('fasteners');
      expect(textOf(await call('trove_collections', { query: 'nothing-like-it' }))).toContain('No collection matches');
    });

    it('trove_schema gives fields, types, samples and the filter guide', async () => {
      const text = textOf(await call('trove_schema', { collection: 'fasteners', record_type: 'product' }));
      expect(text).toMatch(/\| price \| number \| 3\/3 \| 0\.3 · 0\.08 · 0\.42 \|/);
      expect(text).toMatch(/\| in_stock \| boolean \|/);
      expect(text).toContain('`_min`'.slice(1, 5));
      expect(text).toContain('Filter syntax');
      expect(text).toMatch(/notes \| string \| 1\/3 \| x+… \|/);
      expect(text).not.toContain('x'.repeat(100));
    });

    it('trove_search finds records as a markdown table with the total, and as json on request', async () => {
      const text = textOf(await call('trove_search', { collection: 'fasteners', query: 'hex bolt' }));
      expect(text).toContain('Results 1-1 of 1 (');
      expect(textOf(await call('trove_search', { collection: 'fasteners', query: 'hex bolt', exact_total: true }))).toContain('Results 1-1 of 1 (');
      expect(text).toContain('| 1 | Hex bolt M8x40 stainless steel |');
      expect(text).toContain(boltId);
      expect(text).not.toContain('x'.repeat(100));
      const json = JSON.parse(textOf(await call('trove_search', { collection: 'fasteners', filters: { price_max: 0.35 }, sort: 'price', format: 'json' })));
      expect(json.results.map((r: { name: string }) => r.name)).toEqual(['Hex nut M8 zinc plated', 'Countersunk screw M6x20 brass']);
      expect(json.total).toBe(2);
    });

    it('trove_search says when it dropped the query and retried the filters alone', async () => {
      const text = textOf(await call('trove_search', { collection: 'fasteners', query: 'washer', filters: { material: 'brass' } }));
      expect(text).toContain('the query was dropped');
      expect(text).toContain('Countersunk screw M6x20 brass');
    });

    it('trove_aggregate counts, groups and summarises', async () => {
      const text = textOf(await call('trove_aggregate', { collection: 'fasteners', filters: { in_stock: true }, group_by: 'material', stats: ['price'] }));
      expect(text).toContain('Total matching records in "fasteners": 2');
      expect(text).toContain('| stainless steel | 1 |');
      expect(text).toMatch(/\| price \| 2 \| 0\.08 \| 0\.42 \| 0\.25 \|/);
    });

    it('trove_list pages with a cursor and supports OR, phrases, negation, filters and statuses', async () => {
      const first = textOf(await call('trove_list', { collection: 'fasteners', limit: 2 }));
      expect(first).toContain('2 active records');
      const cursor = /Next cursor: (\S+)/.exec(first)![1]!;
      const second = textOf(await call('trove_list', { collection: 'fasteners', limit: 2, cursor }));
      expect(second).toContain('Next cursor: none');
      const names = (t: string) => [...t.matchAll(/^\| ([^|]+?) \| (?:product|manual) \|/gm)].map((m) => m[1]);
      expect(new Set([...names(first), ...names(second)]).size).toBe(4);

      expect(names(textOf(await call('trove_list', { collection: 'fasteners', q: 'nut OR screw', sort: 'name' })))).toEqual(['Countersunk screw M6x20 brass', 'Hex nut M8 zinc plated']);
      expect(names(textOf(await call('trove_list', { collection: 'fasteners', q: 'hex -zinc' })))).toEqual(['Hex bolt M8x40 stainless steel']);
      expect(names(textOf(await call('trove_list', { collection: 'fasteners', q: '"stainless steel"' })))).toEqual(['Hex bolt M8x40 stainless steel']);
      expect(names(textOf(await call('trove_list', { collection: 'fasteners', q: '"steel stainless"' })))).toEqual([]);
      expect(names(textOf(await call('trove_list', { collection: 'fasteners', filters: { price_min: 0.1, in_stock: 'true' } })))).toEqual(['Hex bolt M8x40 stainless steel']);
      expect(names(textOf(await call('trove_list', { collection: 'fasteners', filters: { material: [' brass ', 'zinc plated steel'], price_lt: 0.35 } })))).toEqual([
        'Countersunk screw M6x20 brass',
        'Hex nut M8 zinc plated',
      ]);
      const drafts = textOf(await call('trove_list', { collection: 'fasteners', status: 'draft' }));
      expect(drafts).toContain(draftId);
    });

    it('trove_lookup returns the full record as YAML, long values cut, and JSON on request', async () => {
      const text = textOf(await call('trove_lookup', { record_id: boltId }));
      expect(text).toContain('name: Hex bolt M8x40 stainless steel');
      expect(text).toContain('standard: DIN 933');
      expect(text).toContain('…');
      expect(text.length).toBeLessThan(3_000);
      const json = JSON.parse(textOf(await call('trove_lookup', { record_id: boltId, format: 'json' })));
      expect(json.collection_data.price).toBe(0.42);
    });

    it('reads the record and schema resources', async () => {
      const record = await client.readResource({ uri: `record://${boltId}` });
      expect((record.contents[0] as { text: string }).text).toContain('name: Hex bolt M8x40 stainless steel');
      const schema = await client.readResource({ uri: 'schema://fasteners/product' });
      const text = (schema.contents[0] as { text: string }).text;
      expect(text).toContain('price: number');
      expect(text).toContain('in_stock: boolean');
    });

    it.each([
      ['trove_search', { collection: 'fasteners', query: 'bolt', limit: 500 }, 'limit must be at most 50'],
      ['trove_search', { query: 'bolt' }, 'collection is required'],
      ['trove_search', { collection: 'fasteners' }, 'Give a query, filters, or both'],
      ['trove_search', { collection: 'fasteners', filters: { price_min: 'cheap' } }, 'price_min'],
      ['trove_list', { collection: 'fasteners', status: 'deleted' }, 'status must be "active", "draft" or "suspended"'],
      ['trove_list', { collection: 'fasteners', cursor: 'garbage!' }, 'cursor: pass the "Next cursor" value'],
      ['trove_list', { collection: 'fasteners', filters: { price_min: 'cheap' } }, 'a range needs one number'],
      ['trove_aggregate', { collection: 'fasteners', stats: ['a', 'b', 'c', 'd', 'e', 'f'] }, 'stats takes at most 5 fields'],
      ['trove_lookup', { record_id: 'not-a-uuid' }, 'record_id must be a record id'],
      ['trove_schema', { collection: 'no such collection!' }, 'collection must be 1-50 letters'],
      ['trove_schema', { collection: 'empty' }, 'has no active records'],
    ])('%s with invalid arguments %j is a tool error saying what to fix', async (name, args, message) => {
      const result = await call(name, args);
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain(message);
    });

    it("never shows another tenant's records", async () => {
      const lookup = await call('trove_lookup', { record_id: foreignId });
      expect(lookup.isError).toBe(true);
      expect(textOf(lookup)).toContain(`No record with id ${foreignId}`);
      expect(textOf(await call('trove_search', { collection: 'fasteners', query: 'another tenant' }))).not.toContain('another tenant');
      expect(textOf(await call('trove_list', { collection: 'fasteners', q: 'tenant' }))).not.toContain(foreignId);
      await expect(client.readResource({ uri: `record://${foreignId}` })).rejects.toThrow(/No record/);
      const theirs = await sys.connect(other);
      expect(textOf(await theirs.callTool({ name: 'trove_lookup', arguments: { record_id: foreignId } }))).toContain('secret alloy');
      expect(textOf(await theirs.callTool({ name: 'trove_aggregate', arguments: { collection: 'fasteners' } }))).toContain(': 1');
    });
  });

  describe('arguments as an AI client may give them', () => {
    const someId = '3f2b8c1e-0000-4000-8000-000000000000';

    it.each([
      ['trove_search', { collection: 'fasteners', query: 'bolt', fliters: { material: 'brass' } }, 'fliters', 'filters'],
      ['trove_list', { collection: 'fasteners', sortt: 'name' }, 'sortt', 'sort'],
      ['trove_collections', { limt: 5 }, 'limt', 'limit'],
      ['trove_schema', { collection: 'fasteners', recordtype: 'product' }, 'recordtype', 'record_type'],
      ['trove_aggregate', { collection: 'fasteners', groupby: 'material' }, 'groupby', 'group_by'],
      ['trove_lookup', { record_id: someId, fromat: 'json' }, 'fromat', 'format'],
    ])('%s refuses the unknown argument in %j, naming it, the closest valid name and every valid one', async (name, args, unknown, closest) => {
      const result = await call(name, args);
      expect(result.isError).toBe(true);
      const text = textOf(result);
      expect(text).toContain(`Unknown argument "${unknown}"`);
      expect(text).toContain(`did you mean "${closest}"?`);
      const { tools } = await client.listTools();
      for (const valid of Object.keys(tools.find((t) => t.name === name)!.inputSchema.properties ?? {})) expect(text).toContain(valid);
    });

    it('names an unknown argument without a guess when no valid name is close', async () => {
      const result = await call('trove_search', { collection: 'fasteners', query: 'bolt', colour: 'red' });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('Unknown argument "colour"');
      expect(textOf(result)).not.toContain('did you mean');
      expect(textOf(result)).toContain('Valid arguments: collection');
    });

    it('advertises every tool input schema as closed (additionalProperties: false)', async () => {
      const { tools } = await client.listTools();
      for (const tool of tools) expect([tool.name, tool.inputSchema.additionalProperties]).toEqual([tool.name, false]);
    });

    const names = (t: string) => [...t.matchAll(/^\| ([^|]+?) \| (?:product|manual) \|/gm)].map((m) => m[1]);

    it('trove_list takes `query` as the same thing as `q`, and refuses both with different values', async () => {
      expect(names(textOf(await call('trove_list', { collection: 'fasteners', query: 'nut OR screw', sort: 'name' })))).toEqual([
        'Countersunk screw M6x20 brass',
        'Hex nut M8 zinc plated',
      ]);
      expect(names(textOf(await call('trove_list', { collection: 'fasteners', q: 'nut', query: 'nut' })))).toEqual(['Hex nut M8 zinc plated']);
      const both = await call('trove_list', { collection: 'fasteners', q: 'nut', query: 'screw' });
      expect(both.isError).toBe(true);
      expect(textOf(both)).toContain('`q` and `query` are the same argument');
      const { tools } = await client.listTools();
      const list = tools.find((t) => t.name === 'trove_list')!.inputSchema.properties as Record<string, { description?: string }>;
      expect(list.query!.description).toContain('Same as `q`');
    });

    it('trove_search and trove_collections take `q` as the same thing as `query`', async () => {
      const found = await call('trove_search', { collection: 'fasteners', q: 'hex bolt' });
      expect(found.isError).toBeFalsy();
      expect(textOf(found)).toContain('| 1 | Hex bolt M8x40 stainless steel |');
      expect(textOf(await call('trove_collections', { q: 'nothing-like-it' }))).toContain('No collection matches');
      const both = await call('trove_search', { collection: 'fasteners', q: 'bolt', query: 'nut' });
      expect(both.isError).toBe(true);
      expect(textOf(both)).toContain('`query` and `q` are the same argument');
    });

    it.each(['trove_search', 'trove_list', 'trove_aggregate'])('%s answers an object as a filter value with the forms that are valid', async (name) => {
      const result = await call(name, { collection: 'fasteners', filters: { price: { min: 5 } } });
      expect(result.isError).toBe(true);
      const text = textOf(result);
      expect(text).toContain('filter "price"');
      expect(text).toContain('"price_min": 5');
      for (const form of ['_max', '_gt', '_lt', '_in', 'comma', 'plain value']) expect(text).toContain(form);
    });

    it.each([
      ['trove_search', { collection: 'Fasteners', query: 'bolt' }],
      ['trove_list', { collection: 'Fasteners' }],
      ['trove_aggregate', { collection: 'FASTENERS' }],
      ['trove_schema', { collection: 'Fasteners' }],
    ])('%s with a collection that differs only in case (%j) names the collection that exists', async (name, args) => {
      const result = await call(name, args);
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('did you mean "fasteners"?');
    });

    it('reads the schema resource of a collection named in the wrong case as an error naming the right one', async () => {
      await expect(client.readResource({ uri: 'schema://Fasteners/product' })).rejects.toThrow(/did you mean "fasteners"\?/);
    });

    it('advertises no listChanged: a stateless server cannot send that notification', async () => {
      const caps = client.getServerCapabilities()!;
      expect(caps.tools).toBeDefined();
      expect(caps.resources).toBeDefined();
      expect(caps.tools!.listChanged).not.toBe(true);
      expect(caps.resources!.listChanged).not.toBe(true);
      expect(caps.resources!.subscribe).not.toBe(true);
    });
  });
}
