import CircuitBreaker from 'opossum';
import { cacheLookups, observeBreaker, renderMetrics, serviceRegistry } from './metrics';

describe('observeBreaker', () => {
  it('reports each upstream as closed (0), open (2) or half-open (1), the worst of its breakers, and counts openings', async () => {
    const registry = serviceRegistry('gateway');
    const search = new CircuitBreaker(async () => 'ok');
    const otherSearch = new CircuitBreaker(async () => 'ok');
    const records = new CircuitBreaker(async () => 'ok', { resetTimeout: 10 });
    observeBreaker(registry, search, 'search');
    observeBreaker(registry, otherSearch, 'search');
    observeBreaker(registry, records, 'records');

    let text = await renderMetrics([registry]);
    expect(text).toMatch(/^trove_circuit_breaker_state\{upstream="search",service="gateway"\} 0$/m);
    expect(text).toMatch(/^trove_circuit_breaker_opens_total\{upstream="search",service="gateway"\} 0$/m);

    otherSearch.open();
    records.open();
    // Past its reset timeout, an open breaker lets a trial call through: half-open.
    await new Promise((resolve) => setTimeout(resolve, 50));
    text = await renderMetrics([registry]);
    expect(text).toMatch(/^trove_circuit_breaker_state\{upstream="search",service="gateway"\} 2$/m);
    expect(text).toMatch(/^trove_circuit_breaker_opens_total\{upstream="search",service="gateway"\} 1$/m);
    expect(text).toMatch(/^trove_circuit_breaker_state\{upstream="records",service="gateway"\} 1$/m);
    expect(text).toMatch(/^trove_circuit_breaker_opens_total\{upstream="records",service="gateway"\} 1$/m);

    for (const b of [search, otherSearch, records]) b.shutdown();
    text = await renderMetrics([registry]);
    expect(text).not.toMatch(/^trove_circuit_breaker_state\{/m);
  });
});

describe('cacheLookups', () => {
  it('counts hits, misses and errors per cache, every series there from the start', async () => {
    const registry = serviceRegistry('search');
    const responses = cacheLookups(registry, 'search_response');
    const keys = cacheLookups(registry, 'api_key');

    responses('hit');
    responses('hit');
    responses('miss');
    keys('error');

    const text = await renderMetrics([registry]);
    expect(text).toMatch(/^trove_cache_lookups_total\{cache="search_response",result="hit",service="search"\} 2$/m);
    expect(text).toMatch(/^trove_cache_lookups_total\{cache="search_response",result="miss",service="search"\} 1$/m);
    expect(text).toMatch(/^trove_cache_lookups_total\{cache="search_response",result="error",service="search"\} 0$/m);
    expect(text).toMatch(/^trove_cache_lookups_total\{cache="api_key",result="error",service="search"\} 1$/m);
  });
});
