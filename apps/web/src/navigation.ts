import { parseRoute, type Route } from './router';

type Listener = (route: Route) => void;
const listeners = new Set<Listener>();

export const currentRoute = () => parseRoute(window.location.pathname, window.location.search);

/** Goes to another screen without loading the page again (history.pushState; Back returns). */
export function navigate(href: string, replace = false): void {
  if (replace) window.history.replaceState(null, '', href);
  else window.history.pushState(null, '', href);
  const route = currentRoute();
  for (const listener of listeners) listener(route);
  window.scrollTo(0, 0);
}

export function onRoute(listener: Listener): () => void {
  listeners.add(listener);
  const popped = () => listener(currentRoute());
  window.addEventListener('popstate', popped);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('popstate', popped);
  };
}
