import { AppFields, AppTypeField, type AppField } from '../components/app-fields.js';
import { CsrfField } from '../components/field.js';
import { Notice } from '../components/notice.js';
import { formatTime } from '../format.js';
import { Layout } from '../layout.js';

export type RegisterAppField = AppField;

/** What the console confirms after a redirect, chosen by its key (`?notice=deleted`): no text comes from the URL. */
export const CONSOLE_NOTICES = {
  deleted: 'The app was deleted. Its tokens no longer work.',
} as const;
export type ConsoleNotice = keyof typeof CONSOLE_NOTICES;

export interface DeveloperPageProps {
  csrfToken: string;
  apps: { clientId: string; name: string; logoUrl: string | null; redirectUriCount: number; createdAt: Date }[];
  notice?: ConsoleNotice | undefined;
  values: Partial<Record<RegisterAppField, string>> & { appType?: string };
  errors: Partial<Record<RegisterAppField, string>>;
}

export function DeveloperPage({ csrfToken, apps, notice, values, errors }: DeveloperPageProps) {
  return (
    <Layout title="Developer console" signedIn wide current="developer">
      <Notice>{notice && CONSOLE_NOTICES[notice]}</Notice>
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
          <AppTypeField value={values.appType} />
          <AppFields values={values} errors={errors} />
          <div class="actions">
            <button type="submit">Register app</button>
          </div>
        </form>
      </section>
    </Layout>
  );
}
