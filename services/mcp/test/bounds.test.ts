import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { newTenant, startMcpSystem, textOf, type McpSystem } from './helpers';

/** The most text one MCP answer may carry (UTF-8 bytes), as docs/api/limits.md documents it. */
const LIMIT = 64 * 1024;
const bytes = (text: string) => Buffer.byteLength(text, 'utf8');

/** Records of 1,000 fields each, every record's field names its own, so the sampled records hold 20,000 fields. */
const WIDE_RECORDS = 21;
const FIELDS = 1_000;

function wideData(r: number): Record<string, unknown> {
  const data: Record<string, unknown> = { kind: 'wide' };
  for (let i = 1; i < FIELDS; i++) data[`r${r}_field_${i}`] = `value ${i} of record ${r} ${'w'.repeat(80)}`;
  return data;
}

/** One record (of 943 fields) whose values are large: long strings, a long list and an object of objects. */
function hugeData(): Record<string, unknown> {
  const data: Record<string, unknown> = { kind: 'huge', list: Array.from({ length: 20_000 }, (_, i) => i) };
  for (let i = 0; i < 100; i++) data[`text_${i}`] = `text ${i} ${'t'.repeat(2_000)}`;
  const nested: Record<string, Record<string, string>> = {};
  for (let i = 0; i < 20; i++) {
    nested[`outer_${i}`] = {};
    for (let j = 0; j < 40; j++) nested[`outer_${i}`]![`inner_${j}`] = `${i}.${j} ${'n'.repeat(30)}`;
  }
  data.nested = nested;
  return data;
}

describe('MCP answers stay under 64 KB and say what they left out', () => {
  let sys: McpSystem;
  let client: Client;
  let hugeId: string;
  const tenant = newTenant();

  beforeAll(async () => {
    sys = await startMcpSystem();
    for (let r = 0; r < WIDE_RECORDS; r++) {
      await sys.create(tenant, { name: `Wide record ${r} ${'long name '.repeat(40)}`, collection: 'wide', record_type: 'product', collection_data: wideData(r) });
    }
    hugeId = (await sys.create(tenant, { name: 'Huge record', collection: 'huge', record_type: 'manual', collection_data: hugeData() })).id;
    client = await sys.connect(tenant);
  }, 180_000);

  afterAll(async () => {
    await sys?.stop();
  });

  const call = async (name: string, args: Record<string, unknown>) => {
    const result = await client.callTool({ name, arguments: args });
    expect(result.isError).toBeFalsy();
    const text = textOf(result);
    expect(bytes(text)).toBeLessThanOrEqual(LIMIT);
    return text;
  };
  const read = async (uri: string) => {
    const text = ((await client.readResource({ uri })).contents[0] as { text: string }).text;
    expect(bytes(text)).toBeLessThanOrEqual(LIMIT);
    return text;
  };

  it('trove_schema describes the 200 most common of 20,000 fields and says how many more there are', async () => {
    for (const args of [{ collection: 'wide' }, { collection: 'wide', record_type: 'product' }]) {
      const text = await call('trove_schema', args);
      expect(text).toMatch(/^\| kind \| string \| 20\/20 \| wide \|$/m);
      expect(text.match(/^\| r\d+_field_/gm)).toHaveLength(199);
      expect(text).toContain('… 19781 more fields not shown (19981 in the sampled records');
      expect(text).toContain(args.record_type ? 'read one record with trove_lookup' : 'Ask trove_schema for one record_type');
      expect(text).toContain('Filter syntax');
    }
  });

  it('the schema resource lists the same 200 fields and notes the rest', async () => {
    const text = await read('schema://wide/product');
    expect(text).toContain('kind: string');
    expect(text.match(/^ {2}r\d+_field_\d+: string$/gm)).toHaveLength(199);
    expect(text).toContain('# … 19781 more fields not shown');
  });

  it('trove_lookup cuts fields, list items and long values of a huge record, in YAML and in parseable JSON', async () => {
    const yaml = await call('trove_lookup', { record_id: hugeId });
    expect(yaml).toContain('name: Huge record');
    expect(yaml).toMatch(/# Cut to fit: \d+ fields, 19975 list items, the rest of \d+ long values left out \(marked …\)/);
    const json = JSON.parse(await call('trove_lookup', { record_id: hugeId, format: 'json' }));
    expect(json.name).toBe('Huge record');
    expect(json.collection_data.list).toHaveLength(26);
    expect(json.collection_data['…']).toMatch(/^\d+ more fields$/);
  });

  it('the record resource is cut like trove_lookup', async () => {
    const text = await read(`record://${hugeId}`);
    expect(text).toContain('name: Huge record');
    expect(text).toContain('# Cut to fit:');
  });

  it('trove_search gives each result a share of the answer, in JSON saying what it cut', async () => {
    const json = JSON.parse(await call('trove_search', { collection: 'wide', filters: { kind: 'wide' }, limit: 50, format: 'json' }));
    expect(json.results).toHaveLength(WIDE_RECORDS);
    for (const r of json.results) expect(r.collection_data['…']).toMatch(/^\d+ more fields$/);
    expect(json.cut).toContain('left out');
    const text = await call('trove_search', { collection: 'wide', filters: { kind: 'wide' }, limit: 50 });
    expect(text).toMatch(/\| kind: wide; r0_field_1: value 1 of record 0 w+… \|/);
  });

  it('trove_list, trove_aggregate and trove_collections stay small with wide records and huge values', async () => {
    const list = await call('trove_list', { collection: 'wide', filters: { kind: 'wide' }, limit: 50 });
    expect(list).toContain(`${WIDE_RECORDS} active records`);
    expect(list).toMatch(/\| kind: wide; r0_field_1: value 1 of record 0 w+… \|/);
    const grouped = await call('trove_aggregate', { collection: 'huge', group_by: 'text_1', stats: ['list'] });
    expect(grouped).toMatch(/\| text 1 t+… \| 1 \|/);
    const collections = await call('trove_collections', {});
    expect(collections).toMatch(/\| wide \| product \(21\) \| 21 \| product \| e\.g\. Wide record \d+ long name long name long…/);
  });
});
