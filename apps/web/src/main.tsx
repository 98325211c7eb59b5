import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { session } from './api';
import { currentRoute, navigate, onRoute } from './navigation';
import { hrefOf, isPublic, type Route } from './router';
import { EXPIRED_NOTICE, type SessionState } from './session';
import { SignIn, SignUp } from './screens/auth';
import { Collection, Collections } from './screens/collections';
import { Home } from './screens/home';
import { Keys } from './screens/keys';
import { OpenSearch, Search } from './screens/search';
import { Upload } from './screens/upload';
import { Usage } from './screens/usage';
import { Link } from './ui';
import './style.css';

const NAV: Array<{ route: Route; label: string }> = [
  { route: { screen: 'home' }, label: 'Quickstart' },
  { route: { screen: 'keys' }, label: 'API keys' },
  { route: { screen: 'upload' }, label: 'Upload' },
  { route: { screen: 'collections' }, label: 'Collections' },
  { route: { screen: 'search' }, label: 'Search' },
  { route: { screen: 'open' }, label: 'Open API' },
  { route: { screen: 'usage' }, label: 'Usage' },
];

/** Titles of the screens the navigation does not name. */
const TITLES: Partial<Record<Route['screen'], string>> = { 'sign-in': 'Sign in', 'sign-up': 'Create an account', 'not-found': 'Not found' };

function Screen({ route }: { route: Route }) {
  switch (route.screen) {
    case 'sign-in':
      return <SignIn />;
    case 'sign-up':
      return <SignUp />;
    case 'home':
      return <Home />;
    case 'keys':
      return <Keys />;
    case 'upload':
      return <Upload />;
    case 'collections':
      return <Collections />;
    case 'collection':
      return <Collection name={route.name} />;
    case 'search':
      return <Search collection={route.collection} />;
    case 'open':
      return <OpenSearch />;
    case 'usage':
      return <Usage />;
    case 'not-found':
      return (
        <section>
          <h1>Nothing here</h1>
          <p>
            This address is not a screen of Trove. <Link href="/app">Go to the quickstart</Link>.
          </p>
        </section>
      );
  }
}

/** The screen an expired session was on, to return to once the person has signed in again. */
let returnTo: string | undefined;

function App() {
  const [route, setRoute] = useState(currentRoute);
  const [state, setState] = useState<SessionState>(session.current);
  useEffect(() => onRoute(setRoute), []);
  useEffect(
    () =>
      session.subscribe((next) => {
        setState(next);
        // Expired: to sign-in, which says why, and back to the same screen after signing in again; signed out: to
        // sign-in; signed in: to the quickstart.
        if (next.token && isPublic(currentRoute())) {
          navigate(returnTo ?? '/app', true);
          returnTo = undefined;
        }
        if (!next.token && !isPublic(currentRoute())) {
          returnTo = next.notice === EXPIRED_NOTICE ? window.location.pathname + window.location.search : undefined;
          navigate(hrefOf({ screen: 'sign-in' }));
        }
      }),
    [],
  );
  const signedIn = state.token !== undefined;
  // Every screen but sign-in and sign-up needs a session; the token lives in memory, so a new tab starts here.
  const shown: Route = signedIn || isPublic(route) ? route : { screen: 'sign-in' };
  useEffect(() => {
    if (shown !== route) navigate(hrefOf(shown), true);
  }, [shown, route]);
  // After moving to another screen, focus goes to its heading (a screen reader reads where it is now); a page just
  // loaded keeps the browser's own start, so that the first Tab reaches the skip link.
  const moved = useRef(false);
  useEffect(() => {
    const name = shown.screen === 'collection' ? shown.name : (NAV.find((n) => n.route.screen === shown.screen)?.label ?? TITLES[shown.screen]);
    document.title = name ? `${name} · Trove` : 'Trove';
  }, [shown]);
  useEffect(() => {
    if (moved.current) document.querySelector<HTMLElement>('main h1')?.focus();
    moved.current = true;
  }, [shown.screen]);

  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <Link href="/app" class="brand">
          Trove
        </Link>
        {signedIn && (
          <nav aria-label="Main">
            <ul>
              {NAV.map(({ route: r, label }) => (
                <li key={label}>
                  <a
                    href={hrefOf(r)}
                    aria-current={r.screen === shown.screen || (r.screen === 'collections' && shown.screen === 'collection') ? 'page' : undefined}
                    onClick={(e) => {
                      e.preventDefault();
                      navigate(hrefOf(r));
                    }}
                  >
                    {label}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
        )}
        {signedIn && (
          <div class="account">
            <span class="email">{state.email}</span>
            <button type="button" class="secondary" onClick={() => session.signOut()}>
              Sign out
            </button>
          </div>
        )}
      </header>
      <main id="main">
        <Screen route={shown} />
      </main>
    </>
  );
}

render(<App />, document.getElementById('app')!);
