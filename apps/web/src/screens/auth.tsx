import { useState } from 'preact/hooks';
import { problemOf, session, trove } from '../api';
import { Link, Problem } from '../ui';

/** Sign-in and sign-up share a form: email and password, and for sign-up a name and company if the person likes. */
function AccountForm({ mode }: { mode: 'sign-in' | 'sign-up' }) {
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const notice = session.current.notice;
  const signUp = mode === 'sign-up';

  const submit = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    const email = String(form.get('email'));
    const password = String(form.get('password'));
    setBusy(true);
    setError(undefined);
    try {
      const name = String(form.get('display_name') ?? '').trim();
      const company = String(form.get('company') ?? '').trim();
      const answer = signUp
        ? await trove.portal.signUp({ email, password, ...(name && { display_name: name }), ...(company && { company }) })
        : await trove.portal.signIn({ email, password });
      session.signIn(answer.token, answer.account.email);
    } catch (err) {
      setError(problemOf(err));
      setBusy(false);
    }
  };

  return (
    <section class="narrow">
      <h1 tabIndex={-1}>{signUp ? 'Create your Trove account' : 'Sign in to Trove'}</h1>
      {notice && !signUp && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      <form onSubmit={submit} class="stack">
        <label>
          Email
          <input name="email" type="email" autocomplete="email" required />
        </label>
        <label>
          Password
          <input name="password" type="password" autocomplete={signUp ? 'new-password' : 'current-password'} minLength={signUp ? 10 : 1} required />
          {signUp && <span class="hint">At least 10 characters.</span>}
        </label>
        {signUp && (
          <>
            <label>
              Name <span class="hint">(optional)</span>
              <input name="display_name" autocomplete="name" maxLength={200} />
            </label>
            <label>
              Company <span class="hint">(optional)</span>
              <input name="company" autocomplete="organization" maxLength={200} />
            </label>
          </>
        )}
        <Problem message={error} />
        <button type="submit" disabled={busy}>
          {signUp ? 'Create account' : 'Sign in'}
        </button>
      </form>
      <p>
        {signUp ? (
          <>
            Already have an account? <Link href="/app/sign-in">Sign in</Link>
          </>
        ) : (
          <>
            New to Trove? <Link href="/app/sign-up">Create an account</Link>
          </>
        )}
      </p>
    </section>
  );
}

export const SignIn = () => <AccountForm mode="sign-in" />;
export const SignUp = () => <AccountForm mode="sign-up" />;
