import type { MessageKey } from '../../i18n/messages/index.js';
import { AppFields, AppTypeField, type AppField } from '../components/app-fields.js';
import { CsrfField } from '../components/field.js';
import { Notice } from '../components/notice.js';
import { Layout } from '../layout.js';
import { asPage, useI18n } from '../page-context.js';

export type RegisterAppField = AppField;

/** What the console confirms after a redirect, chosen by its key (`?notice=deleted`): no text comes from the URL. */
export const CONSOLE_NOTICES = {
  deleted: 'developer.notice.deleted',
} as const satisfies Record<string, MessageKey>;
export type ConsoleNotice = keyof typeof CONSOLE_NOTICES;

export interface DeveloperPageProps {
  csrfToken: string;
  apps: { clientId: string; name: string; logoUrl: string | null; redirectUriCount: number; createdAt: Date }[];
  notice?: ConsoleNotice | undefined;
  values: Partial<Record<RegisterAppField, string>> & { appType?: string };
  errors: Partial<Record<RegisterAppField, string>>;
}

export const DeveloperPage = asPage(function DeveloperPage({ csrfToken, apps, notice, values, errors }: DeveloperPageProps) {
  const { t, dateTime } = useI18n();
  return (
    <Layout title={t('developer.title')} signedIn wide current="developer">
      <Notice>{notice && t(CONSOLE_NOTICES[notice])}</Notice>
      <section class="card" aria-labelledby="apps-heading">
        <h1 id="apps-heading">{t('developer.apps')}</h1>
        <p class="lead">{t('developer.lead')}</p>
        {apps.length === 0 ? (
          <p class="muted">{t('developer.none')}</p>
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
                    {t('developer.clientId')} <code>{app.clientId}</code> · {t('developer.app.redirectUrls', { count: app.redirectUriCount })} ·{' '}
                    {t('developer.app.registered', { time: dateTime(app.createdAt) })}
                  </span>
                </div>
              </li>
            ))}
          </ul>
        )}
      </section>

      <section class="card" aria-labelledby="register-heading">
        <h2 id="register-heading">{t('developer.register')}</h2>
        <form method="post" action="/developer/apps" novalidate>
          <CsrfField token={csrfToken} />
          <AppTypeField value={values.appType} />
          <AppFields values={values} errors={errors} />
          <div class="actions">
            <button type="submit">{t('developer.registerSubmit')}</button>
          </div>
        </form>
      </section>
    </Layout>
  );
});
