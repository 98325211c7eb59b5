import { z } from 'zod';
import { filterValueProblem, toolInput } from './mcp-tool-input';

describe('a tool input', () => {
  const input = toolInput({ collection: z.string(), filters: z.record(z.string(), z.string()).optional(), group_by: z.string().optional() });

  it('refuses an unknown argument, naming the closest valid name and every valid one', () => {
    expect(input.safeParse({ collection: 'parts', fliters: {}, groupBy: 'x' }).error?.issues.map((i) => i.message)).toEqual([
      'Unknown argument "fliters" (did you mean "filters"?). Unknown argument "groupBy" (did you mean "group_by"?). Valid arguments: collection, filters, group_by.',
    ]);
    expect(input.safeParse({ collection: 'parts', colour: 'red' }).error?.issues[0]?.message).toBe('Unknown argument "colour". Valid arguments: collection, filters, group_by.');
  });

  it('advertises itself as closed', () => {
    expect(z.toJSONSchema(input)).toMatchObject({ additionalProperties: false });
  });
});

describe('a filter value that is not one', () => {
  it('rewrites an object of operator words as the keys that say the same, and lists the valid forms', () => {
    const problem = filterValueProblem('price', { min: 5, $lte: 10 });
    expect(problem).toContain('filter "price": a filter value must be text, a number, true/false or a list of them, not an object.');
    expect(problem).toContain('Write it as "price_min": 5, "price_max": 10.');
    for (const form of ['"price": "steel"', '"price": "a,b" or ["a", "b"]', '"price_in"', '"price_min"', '"price_max"', '"price_gt"', '"price_lt"']) expect(problem).toContain(form);
  });

  it('lists the valid forms alone when nothing in the value reads as an operator', () => {
    expect(filterValueProblem('material', { kind: 'steel' })).not.toContain('Write it as');
    expect(filterValueProblem('material', null)).toContain('not null.');
    expect(filterValueProblem('material', [{ min: 1 }])).toContain('not a list holding something else.');
  });
});
