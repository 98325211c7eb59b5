import { hrefOf, isPublic, parseRoute } from './router';

describe('the UI addresses', () => {
  it('reads each screen from its address under /app, / and /app being the quickstart', () => {
    expect(parseRoute('/')).toEqual({ screen: 'home' });
    expect(parseRoute('/app')).toEqual({ screen: 'home' });
    expect(parseRoute('/app/keys')).toEqual({ screen: 'keys' });
    expect(parseRoute('/app/collections')).toEqual({ screen: 'collections' });
    expect(parseRoute('/app/collections/my%20things')).toEqual({ screen: 'collection', name: 'my things' });
    expect(parseRoute('/app/search', '?collection=fasteners')).toEqual({ screen: 'search', collection: 'fasteners' });
    expect(parseRoute('/app/nothing')).toEqual({ screen: 'not-found' });
    expect(parseRoute('/app/keys/extra')).toEqual({ screen: 'not-found' });
    expect(parseRoute('/elsewhere')).toEqual({ screen: 'not-found' });
  });

  it('writes the address of every screen so that reading it back gives the same screen', () => {
    for (const route of [{ screen: 'keys' }, { screen: 'collection', name: 'a/b c' }, { screen: 'search', collection: 'x&y' }, { screen: 'sign-in' }] as const) {
      const url = new URL(hrefOf(route), 'http://localhost');
      expect(parseRoute(url.pathname, url.search)).toEqual(route);
    }
  });

  it('lets only sign-in and sign-up be seen signed out', () => {
    expect(isPublic({ screen: 'sign-in' })).toBe(true);
    expect(isPublic({ screen: 'sign-up' })).toBe(true);
    expect(isPublic({ screen: 'keys' })).toBe(false);
  });
});
