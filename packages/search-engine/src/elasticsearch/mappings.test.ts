import { documentMappings, generationMappings, indexesOf, indexTemplates } from './mappings';

describe('Elasticsearch layout', () => {
  it('names three lower-case indexes after the prefix', () => {
    expect(indexesOf('Trove-Test')).toEqual({
      records: 'trove-test-records',
      public: 'trove-test-public',
      generations: 'trove-test-generations',
    });
  });

  it('maps a fixed set of fields, so tenant data never adds a mapping per field', () => {
    expect(documentMappings.dynamic).toBe('strict');
    expect(Object.keys(documentMappings.properties ?? {}).sort()).toEqual(
      [
        'collection',
        'collection_data',
        'data',
        'data_text',
        'description',
        'description_llm',
        'generation',
        'identifiers',
        'name',
        'name_key',
        'record_id',
        'record_type',
        'source_type',
        'status',
        'tenant_id',
        'tombstone',
        'updated_at',
        'version',
        'visibility',
        'vocabulary',
      ].sort(),
    );
    expect(generationMappings.dynamic).toBe('strict');
  });

  it('keeps collection_data for display only and its values as a nested key/value array', () => {
    const properties = documentMappings.properties ?? {};
    expect(properties.collection_data).toEqual({ type: 'object', enabled: false });
    const data = properties.data as { type: string; dynamic: string; properties: Record<string, { type: string }> };
    expect(data.type).toBe('nested');
    expect(data.dynamic).toBe('strict');
    expect(Object.fromEntries(Object.entries(data.properties).map(([k, v]) => [k, v.type]))).toEqual({
      k: 'keyword',
      s: 'keyword',
      n: 'double',
      b: 'boolean',
      j: 'keyword',
      t: 'text',
    });
  });

  it('has one template per index, matching exactly that index', () => {
    const indexes = indexesOf('t1');
    const templates = indexTemplates(indexes);
    expect(templates.map((t) => [t.name, t.index_patterns])).toEqual([
      ['t1-records', ['t1-records']],
      ['t1-public', ['t1-public']],
      ['t1-generations', ['t1-generations']],
    ]);
    expect(templates[0]!.template?.mappings).toBe(documentMappings);
    expect(templates[1]!.template?.mappings).toBe(documentMappings);
    expect(templates[2]!.template?.mappings).toBe(generationMappings);
  });
});
