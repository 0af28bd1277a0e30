// The console's shell: sign-in until an operator token is given, then the navigation and the page
// of the current path (wouter, under /console). Landmarks, a skip link and visible focus keep it
// usable from the keyboard; the navigation wraps on a phone.
import { Suspense, useState, type FormEvent } from 'react';
import { Link, Route, Router, Switch, useLocation } from 'wouter';
import { AuthProvider, useAuth } from './auth';
import { PAGES } from './pages';
import { Loading } from './components/ui';

export function App() {
  return (
    <AuthProvider>
      <Router base="/console">
        <Shell />
      </Router>
    </AuthProvider>
  );
}

function Shell() {
  const { me, checking, signOut } = useAuth();
  const [location] = useLocation();
  if (checking) return <Loading />;
  if (me === null) return <SignIn />;
  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <span className="brand">Parapet</span>
        <nav aria-label="Main">
          <ul>
            {PAGES.filter((page) => page.nav !== undefined).map((page) => {
              const current = page.path === '/' ? location === '/' : location.startsWith(page.path);
              return (
                <li key={page.path}>
                  <Link href={page.path} aria-current={current ? 'page' : undefined}>
                    {page.nav}
                  </Link>
                </li>
              );
            })}
          </ul>
        </nav>
        <span className="who">
          {me.name} <span className="role">({me.role})</span>
          <button type="button" className="link" onClick={signOut}>
            Sign out
          </button>
        </span>
      </header>
      <main id="main">
        <Suspense fallback={<Loading />}>
          <Switch>
            {PAGES.map((page) => (
              <Route key={page.path} path={page.path} component={page.component} />
            ))}
            <Route>
              <h1>Not found</h1>
              <p>
                No page here. <Link href="/">Back to the overview</Link>.
              </p>
            </Route>
          </Switch>
        </Suspense>
      </main>
    </>
  );
}

function SignIn() {
  const { signIn } = useAuth();
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(await signIn(token));
    setBusy(false);
  };
  return (
    <main id="main" className="signin">
      <h1>Parapet console</h1>
      <form onSubmit={(event) => void submit(event)}>
        <label htmlFor="token">Operator token</label>
        <input id="token" name="token" type="password" autoComplete="off" value={token} onChange={(event) => setToken(event.target.value)} required />
        <p className="hint">Kept for this tab only. Mint one with <code>parapet tokens create</code> or POST /api/tokens.</p>
        <button type="submit" disabled={busy || token.trim() === ''}>
          Sign in
        </button>
        {error !== null && (
          <p role="alert" className="error">
            {error}
          </p>
        )}
      </form>
    </main>
  );
}
