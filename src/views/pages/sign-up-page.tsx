import { AppBanner, type AppBannerProps } from '../components/app-banner.js';
import { CsrfField, Field } from '../components/field.js';
import { Layout } from '../layout.js';

export interface SignUpPageProps {
  csrfToken: string;
  returnTo: string;
  /** The app of the authorization request this sign-up returns to (accounts/requesting-app.ts). */
  app?: AppBannerProps['app'];
  /** Shown in the password field's hint; the rule itself is checked by the route. */
  passwordMinLength: number;
  values: { name?: string; email?: string };
  errors: Partial<Record<'name' | 'email' | 'password', string>>;
}

export function SignUpPage({ csrfToken, returnTo, app, passwordMinLength, values, errors }: SignUpPageProps) {
  const signInHref = returnTo === '/' ? '/login' : `/login?return_to=${encodeURIComponent(returnTo)}`;
  return (
    <Layout title="Create your account">
      <div class="card">
        <h1>Create your account</h1>
        <AppBanner app={app} />
        {Object.keys(errors).length > 0 ? (
          <p class="alert error" role="alert">
            Please fix the {Object.keys(errors).length === 1 ? 'field' : 'fields'} marked below.
          </p>
        ) : null}
        <form method="post" action="/signup" novalidate>
          <CsrfField token={csrfToken} />
          <input type="hidden" name="return_to" value={returnTo} />
          <Field id="name" name="name" label="Name" autocomplete="name" required value={values.name} error={errors.name} autofocus={!errors.email && !errors.password} />
          <Field id="email" name="email" label="Email" type="email" autocomplete="email" required value={values.email} error={errors.email} hint="We send a link to this address to confirm it." />
          <Field
            id="password"
            name="password"
            label="Password"
            type="password"
            autocomplete="new-password"
            required
            error={errors.password}
            hint={`At least ${passwordMinLength} characters. A few unrelated words make a strong password that is easy to remember.`}
          />
          <div class="actions">
            <button type="submit">Create account</button>
          </div>
        </form>
        <p class="hint">
          Already have an account? <a href={signInHref}>Sign in</a>
        </p>
      </div>
    </Layout>
  );
}
