/** The UI's screens and their addresses under /app (the gateway answers the page at each, so a reload stays put). */
export type Route =
  | { screen: 'sign-in' }
  | { screen: 'sign-up' }
  | { screen: 'home' }
  | { screen: 'keys' }
  | { screen: 'upload' }
  | { screen: 'search'; collection?: string }
  | { screen: 'open' }
  | { screen: 'collections' }
  | { screen: 'collection'; name: string }
  | { screen: 'usage' }
  | { screen: 'not-found' };

const SIMPLE = ['sign-in', 'sign-up', 'keys', 'upload', 'search', 'open', 'collections', 'usage'] as const;

/** The route of a pathname (and its query string); / and /app are the home screen. */
export function parseRoute(pathname: string, search = ''): Route {
  const parts = pathname.split('/').filter(Boolean).map(decodeURIComponent);
  if (parts.length === 0 || (parts.length === 1 && parts[0] === 'app')) return { screen: 'home' };
  if (parts[0] !== 'app') return { screen: 'not-found' };
  const [, screen, item] = parts;
  if (screen === 'collections' && item !== undefined && parts.length === 3) return { screen: 'collection', name: item };
  if (parts.length !== 2) return { screen: 'not-found' };
  if (screen === 'search') {
    const collection = new URLSearchParams(search).get('collection') ?? undefined;
    return collection ? { screen: 'search', collection } : { screen: 'search' };
  }
  const simple = SIMPLE.find((s) => s === screen);
  return simple ? ({ screen: simple } as Route) : { screen: 'not-found' };
}

/** The address of a route. */
export function hrefOf(route: Route): string {
  switch (route.screen) {
    case 'home':
    case 'not-found':
      return '/app';
    case 'collection':
      return `/app/collections/${encodeURIComponent(route.name)}`;
    case 'search':
      return route.collection ? `/app/search?collection=${encodeURIComponent(route.collection)}` : '/app/search';
    default:
      return `/app/${route.screen}`;
  }
}

/** Screens a signed-out person may see; every other one sends them to sign-in first. */
export const isPublic = (route: Route) => route.screen === 'sign-in' || route.screen === 'sign-up';
