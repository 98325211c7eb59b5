import { z } from 'zod';
import { HttpError, type ValidationIssue } from './errors';
import { fields, parseInput } from './validation';

const recordBody = z.strictObject({
  name: z.string().min(1).max(5),
  status: z.enum(['active', 'draft']).optional(),
  record_type: z.enum(['product', 'document', 'person']),
  count: z.number().int().optional(),
  collection_id: fields.uuid.optional(),
  tags: z.array(z.string()).max(2).optional(),
  source: z.strictObject({ system: z.string() }).optional(),
});

const listQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100),
  offset: z.coerce.number().int().min(0).optional(),
});

/** Runs parseInput and returns the 422 detail it threw. */
function issuesOf(schema: z.ZodType, input: unknown, source: 'body' | 'query' | 'path' = 'body'): ValidationIssue[] {
  try {
    parseInput(schema, input, source);
  } catch (err) {
    expect(err).toBeInstanceOf(HttpError);
    const e = err as HttpError;
    expect(e.status).toBe(422);
    expect(Array.isArray(e.detail)).toBe(true);
    return e.detail as ValidationIssue[];
  }
  throw new Error('parseInput accepted the input');
}

function expectWellFormed(issues: ValidationIssue[], source: string): void {
  expect(issues.length).toBeGreaterThan(0);
  for (const issue of issues) {
    expect(Object.keys(issue).sort()).toEqual(['ctx', 'input', 'loc', 'msg', 'type']);
    expect(issue.loc[0]).toBe(source);
    expect(issue.loc.every((part) => typeof part === 'string')).toBe(true);
    expect(typeof issue.msg).toBe('string');
    expect(issue.msg.length).toBeGreaterThan(0);
    expect(typeof issue.type).toBe('string');
    expect(issue.input).not.toBeUndefined();
    expect(issue.ctx).toEqual(expect.any(Object));
    // The body goes out as JSON: nothing in an issue may be lost or changed on the way.
    expect(JSON.parse(JSON.stringify(issue))).toEqual(issue);
  }
}

const valid = { name: 'Bolt', record_type: 'product' };

describe('parseInput', () => {
  it('returns the parsed value when the input is valid', () => {
    expect(parseInput(recordBody, { ...valid, tags: ['a'] }, 'body')).toEqual({ ...valid, tags: ['a'] });
    expect(parseInput(listQuery, { limit: '20' }, 'query')).toEqual({ limit: 20 });
  });

  it('reports a missing field as type missing, with the enclosing object as input', () => {
    const issues = issuesOf(recordBody, { name: 'Bolt' });

    expectWellFormed(issues, 'body');
    expect(issues).toEqual([{ loc: ['body', 'record_type'], msg: 'Field required', type: 'missing', input: { name: 'Bolt' }, ctx: {} }]);
  });

  it('reports a missing body as a missing field at body', () => {
    const issues = issuesOf(recordBody, undefined);

    expectWellFormed(issues, 'body');
    expect(issues).toEqual([{ loc: ['body'], msg: 'Field required', type: 'missing', input: null, ctx: {} }]);
  });

  it('reports a missing query parameter as missing even when the schema coerces it', () => {
    const issues = issuesOf(listQuery, {}, 'query');

    expectWellFormed(issues, 'query');
    expect(issues).toEqual([expect.objectContaining({ loc: ['query', 'limit'], type: 'missing', msg: 'Field required' })]);
  });

  it('reports a value of the wrong type with the type it should have', () => {
    const issues = issuesOf(recordBody, { ...valid, name: 42 });

    expectWellFormed(issues, 'body');
    expect(issues).toEqual([
      { loc: ['body', 'name'], msg: 'Input should be a valid string', type: 'string_type', input: 42, ctx: { expected: 'string' } },
    ]);
  });

  it('reports null for a required string as the wrong type, not as missing', () => {
    const issues = issuesOf(recordBody, { ...valid, name: null });

    expect(issues).toEqual([expect.objectContaining({ loc: ['body', 'name'], type: 'string_type', input: null })]);
  });

  it('reports a string that is too long or too short with the limit in ctx', () => {
    expect(issuesOf(recordBody, { ...valid, name: 'abcdefg' })).toEqual([
      {
        loc: ['body', 'name'],
        msg: 'String should have at most 5 characters',
        type: 'string_too_long',
        input: 'abcdefg',
        ctx: { max_length: 5 },
      },
    ]);
    expect(issuesOf(recordBody, { ...valid, name: '' })).toEqual([
      { loc: ['body', 'name'], msg: 'String should have at least 1 character', type: 'string_too_short', input: '', ctx: { min_length: 1 } },
    ]);
  });

  it('reports a value outside an enum with the allowed values', () => {
    const issues = issuesOf(recordBody, { ...valid, status: 'deleted' });

    expectWellFormed(issues, 'body');
    expect(issues).toEqual([
      expect.objectContaining({ loc: ['body', 'status'], type: 'enum', input: 'deleted', ctx: { expected: "'active', 'draft'" } }),
    ]);
    expect(issues[0]!.msg).toContain("'active'");
    expect(issues[0]!.msg).toContain("'draft'");
  });

  it('reports a missing enum field as missing rather than as a wrong value', () => {
    const issues = issuesOf(recordBody, { name: 'Bolt', status: 'draft' });

    expect(issues).toEqual([expect.objectContaining({ loc: ['body', 'record_type'], type: 'missing', input: { name: 'Bolt', status: 'draft' } })]);
  });

  it('reports each unknown key as extra_forbidden, with its own value as input', () => {
    const issues = issuesOf(recordBody, { ...valid, colour: 'red', size: 3 });

    expectWellFormed(issues, 'body');
    expect(issues).toEqual([
      { loc: ['body', 'colour'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden', input: 'red', ctx: {} },
      { loc: ['body', 'size'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden', input: 3, ctx: {} },
    ]);
  });

  it('reports an unknown key of a nested object under its full path', () => {
    const issues = issuesOf(recordBody, { ...valid, source: { system: 'erp', colour: 'red' } });

    expect(issues).toEqual([expect.objectContaining({ loc: ['body', 'source', 'colour'], type: 'extra_forbidden', input: 'red' })]);
  });

  it('reports an identifier that is not a UUID as uuid_parsing', () => {
    const issues = issuesOf(recordBody, { ...valid, collection_id: 'not-a-uuid' });

    expectWellFormed(issues, 'body');
    expect(issues).toEqual([
      { loc: ['body', 'collection_id'], msg: 'Input should be a valid UUID', type: 'uuid_parsing', input: 'not-a-uuid', ctx: {} },
    ]);
  });

  it('reports a UUID path parameter under path', () => {
    const issues = issuesOf(z.object({ record_id: fields.uuid }), { record_id: 'abc' }, 'path');

    expectWellFormed(issues, 'path');
    expect(issues).toEqual([expect.objectContaining({ loc: ['path', 'record_id'], type: 'uuid_parsing', input: 'abc' })]);
  });

  it('gives list positions in loc as strings', () => {
    const issues = issuesOf(recordBody, { ...valid, tags: ['ok', 7] });

    expect(issues).toEqual([expect.objectContaining({ loc: ['body', 'tags', '1'], type: 'string_type', input: 7 })]);
  });

  it('reports a list with too many items as too_long', () => {
    const issues = issuesOf(recordBody, { ...valid, tags: ['a', 'b', 'c'] });

    expect(issues).toEqual([expect.objectContaining({ loc: ['body', 'tags'], type: 'too_long', ctx: { max_length: 2 } })]);
  });

  it('reports a query number out of range with the value the client sent', () => {
    const issues = issuesOf(listQuery, { limit: '0' }, 'query');

    expectWellFormed(issues, 'query');
    expect(issues).toEqual([
      { loc: ['query', 'limit'], msg: 'Input should be greater than or equal to 1', type: 'greater_than_equal', input: '0', ctx: { ge: 1 } },
    ]);
    expect(issuesOf(listQuery, { limit: '101' }, 'query')).toEqual([
      expect.objectContaining({ type: 'less_than_equal', input: '101', ctx: { le: 100 } }),
    ]);
  });

  it('reports a query parameter that is not a number with the text the client sent', () => {
    const issues = issuesOf(listQuery, { limit: 'ten' }, 'query');

    expectWellFormed(issues, 'query');
    expect(issues).toEqual([expect.objectContaining({ loc: ['query', 'limit'], input: 'ten' })]);
  });

  it('reports a non-integer where an integer is required', () => {
    const issues = issuesOf(recordBody, { ...valid, count: 1.5 });

    expect(issues).toEqual([expect.objectContaining({ loc: ['body', 'count'], input: 1.5 })]);
    expect(issues[0]!.type).toMatch(/int/);
  });

  it('reports every problem of an input at once', () => {
    const issues = issuesOf(recordBody, { name: 7, status: 'x', extra: true });

    expectWellFormed(issues, 'body');
    expect(issues.map((i) => `${i.loc.join('.')}:${i.type}`).sort()).toEqual(
      ['body.extra:extra_forbidden', 'body.name:string_type', 'body.record_type:missing', 'body.status:enum'].sort(),
    );
  });
});

describe('parseInput: what a 422 sends back', () => {
  it('echoes the start of a huge text value, not all of it', () => {
    const issues = issuesOf(recordBody, { name: 'x'.repeat(2_000_000), record_type: 'product' });
    expect(issues).toEqual([expect.objectContaining({ loc: ['body', 'name'], type: 'string_too_long' })]);
    expect(issues[0]!.input).toMatch(/^x{1000}… \(2000000 characters, not echoed whole\)$/);
  });

  it('describes an object of 100,000 fields, or nested 100,000 deep, instead of echoing it', () => {
    const wide = Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`f${i}`, i]));
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = { a: deep };
    const schema = z.strictObject({ data: z.string(), more: z.string() });
    const issues = issuesOf(schema, { data: wide, more: deep });
    expect(issues.map((i) => i.input)).toEqual(['(an object of 100000 fields, too large to echo)', '(an object of 1 fields, too large to echo)']);
    expect(JSON.stringify(issues).length).toBeLessThan(1000);
  });

  it('still echoes small inputs whole', () => {
    const issues = issuesOf(recordBody, { name: 'Bolt', record_type: 'product', tags: ['a', 'b', 'c'] });
    expect(issues).toEqual([expect.objectContaining({ loc: ['body', 'tags'], input: ['a', 'b', 'c'] })]);
  });

  it('lists at most 100 issues and says how many more there were', () => {
    const schema = z.strictObject({ records: z.array(z.strictObject({ name: z.string() })) });
    const issues = issuesOf(schema, { records: Array.from({ length: 10_000 }, () => ({ name: 1 })) });
    expect(issues).toHaveLength(101);
    expect(issues[100]).toEqual({ loc: ['body'], msg: '9900 more issues not shown', type: 'too_many_issues', input: null, ctx: { omitted: 9900 } });
  });
});
