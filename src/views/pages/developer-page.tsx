import { CsrfField, Field } from '../components/field.js';
import { formatTime } from '../format.js';
import { Layout } from '../layout.js';

export type RegisterAppField = 'name' | 'redirectUris' | 'homepageUrl' | 'logoUrl';

export interface DeveloperPageProps {
  csrfToken: string;
  apps: { clientId: string; name: string; logoUrl: string | null; redirectUriCount: number; createdAt: Date }[];
  notice?: string | undefined;
  values: Partial<Record<RegisterAppField, string>>;
  errors: Partial<Record<RegisterAppField, string>>;
}

export function DeveloperPage({ csrfToken, apps, notice, values, errors }: DeveloperPageProps) {
  return (
    <Layout title="Developer console" signedIn wide>
      {notice ? (
        <p class="alert ok" role="status">
          {notice}
        </p>
      ) : null}
      <section class="card" aria-labelledby="apps-heading">
        <h1 id="apps-heading">Your apps</h1>
        <p class="lead">Apps with a back end that offer “Sign in with Latch” to their users.</p>
        {apps.length === 0 ? (
          <p class="muted">You have not registered an app yet.</p>
        ) : (
          <ul class="plain">
            {apps.map((app) => (
              <li>
                <div>
                  {app.logoUrl ? <img class="logo" src={app.logoUrl} alt="" width={40} height={40} /> : null}
                  <a href={`/developer/apps/${app.clientId}`}>
                    <strong>{app.name}</strong>
                  </a>
                  <br />
                  <span class="muted">
                    Client id <code>{app.clientId}</code> · {app.redirectUriCount} redirect {app.redirectUriCount === 1 ? 'URL' : 'URLs'} · registered{' '}
                    {formatTime(app.createdAt)}
                  </span>
                </div>
              </li>
            ))}
          </ul>
        )}
      </section>

      <section class="card" aria-labelledby="register-heading">
        <h2 id="register-heading">Register a new app</h2>
        <form method="post" action="/developer/apps" novalidate>
          <CsrfField token={csrfToken} />
          <Field id="app_name" name="name" label="App name" required value={values.name} error={errors.name} hint="Shown to people when they sign in and on their account page." />
          <Field
            id="redirect_uris"
            name="redirect_uris"
            label="Redirect URLs"
            multiline
            required
            spellcheck={false}
            value={values.redirectUris}
            error={errors.redirectUris}
            hint="One per line: your back end's callback addresses, compared exactly. https://, or http:// to localhost or 127.0.0.1 while developing."
          />
          <Field id="homepage_url" name="homepage_url" label="Homepage URL (optional)" type="url" value={values.homepageUrl} error={errors.homepageUrl} />
          <Field id="logo_url" name="logo_url" label="Logo URL (optional)" type="url" value={values.logoUrl} error={errors.logoUrl} hint="An https:// address of a square image." />
          <div class="actions">
            <button type="submit">Register app</button>
          </div>
        </form>
      </section>
    </Layout>
  );
}
