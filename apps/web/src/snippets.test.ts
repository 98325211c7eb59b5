import { execFileSync } from 'node:child_process';
import { openSearchCurl, searchBody, searchClient, searchCurl, shellQuote, uploadCurl } from './snippets';

describe('the requests shown to copy', () => {
  it('quotes for a shell so that any text arrives as it is', () => {
    const text = `it's a "bolt" $HOME \`x\``;
    expect(execFileSync('sh', ['-c', `printf %s ${shellQuote(text)}`]).toString()).toBe(text);
  });

  it('sends only what was given', () => {
    expect(searchBody({ query: '  ', filters: {}, sort: '' })).toEqual({});
    expect(searchBody({ query: ' bolt ', filters: { material: 'steel' }, sort: '-price', limit: 20 })).toEqual({
      query: 'bolt',
      filters: { material: 'steel' },
      sort: '-price',
      limit: 20,
    });
  });

  it("writes the person's own gateway, collection and request, and the key as an environment variable", () => {
    const curl = searchCurl('https://trove.example.com', 'my things', { query: "o'clock" });
    expect(curl).toContain(`'https://trove.example.com/api/v1/search/my%20things'`);
    expect(curl).toContain('Bearer $TROVE_API_KEY');
    expect(curl).toContain(`-d '{"query":"o'\\''clock"}'`);
    expect(searchClient('https://trove.example.com', 'fasteners', { query: 'bolt' })).toContain(`trove.search("fasteners", {"query":"bolt"})`);
    expect(openSearchCurl('https://trove.example.com', { query: 'bolt', collection: 'fasteners' })).not.toContain('Authorization');
    expect(uploadCurl('https://trove.example.com', 'fasteners', 'product', 'bolts.csv')).toContain(`-F 'file=@bolts.csv'`);
  });
});
