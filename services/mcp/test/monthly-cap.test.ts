import { newTenant, startMcpSystem, textOf, type McpSystem } from './helpers';

/**
 * MCP's tools search through the search service with the caller's plan, so a free tenant's month cap holds there as
 * through the gateway. Billing is not started here, so the search service counts the month from 0.
 */
describe("MCP searches count against the tenant's month", () => {
  let sys: McpSystem;

  beforeAll(async () => {
    sys = await startMcpSystem();
  });
  afterAll(async () => {
    await sys?.stop();
  });

  it("answers a free tenant's trove_search past 50 in the month with a tool error naming the limit, and an enterprise tenant's as usual", async () => {
    const free = await sys.connect(newTenant(), ['search'], 'free');
    const enterprise = await sys.connect(newTenant(), ['search'], 'enterprise');
    const search = { name: 'trove_search', arguments: { collection: 'fasteners', query: 'bolt' } };

    for (let i = 0; i < 50; i++) expect((await free.callTool(search)).isError).toBeFalsy();
    const refused = await free.callTool(search);
    const others = [];
    for (let i = 0; i < 51; i++) others.push(await enterprise.callTool(search));

    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('Monthly search limit of 50 reached on the free plan');
    expect(others.every((r) => !r.isError)).toBe(true);
  });
});
