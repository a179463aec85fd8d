import { Layout } from '../layout.js';

export interface SignInPageProps {
  csrfToken: string;
  returnTo: string;
  email?: string;
  error?: string;
  clientName?: string;
  /** A confirmation to show above the form (e.g. after a password reset). */
  notice?: string;
  signupEnabled?: boolean;
}

/** DESIGN: inputs labelled "Email" and "Password", submit button "Sign in"; works without JavaScript. */
export function SignInPage({ csrfToken, returnTo, email, error, clientName, notice, signupEnabled }: SignInPageProps) {
  const signUpHref = returnTo === '/' ? '/signup' : `/signup?return_to=${encodeURIComponent(returnTo)}`;
  return (
    <Layout title="Sign in">
      <div class="card">
        <h1>Sign in</h1>
        {clientName ? (
          <p class="lead">
            to continue to <span class="client-name">{clientName}</span>
          </p>
        ) : null}
        {notice && !error ? (
          <p class="alert ok" role="status">
            {notice}
          </p>
        ) : null}
        {error ? (
          <p class="alert error" role="alert" id="signin-error">
            {error}
          </p>
        ) : null}
        <form method="post" action="/login" novalidate>
          <input type="hidden" name="_csrf" value={csrfToken} />
          <input type="hidden" name="return_to" value={returnTo} />
          <label for="email">Email</label>
          <input
            id="email"
            name="email"
            type="email"
            autocomplete="username"
            required
            value={email ?? ''}
            aria-describedby={error ? 'signin-error' : undefined}
            autofocus={!email}
          />
          <label for="password">Password</label>
          <input id="password" name="password" type="password" autocomplete="current-password" required autofocus={!!email} />
          <div class="actions">
            <button type="submit">Sign in</button>
          </div>
        </form>
        <p class="hint">
          <a href="/forgot-password">Forgot your password?</a>
          {signupEnabled ? (
            <>
              {' · '}
              <a href={signUpHref}>Create an account</a>
            </>
          ) : null}
        </p>
      </div>
    </Layout>
  );
}
