import { CsrfField, Field } from '../components/field.js';
import { Layout } from '../layout.js';
import { MessagePage } from './message-page.js';
import { asPage, useI18n } from '../page-context.js';

export interface ResetPasswordPageProps {
  csrfToken: string;
  token: string;
  email: string;
  /** Shown in the password field's hint; the rule itself is checked by the route. */
  passwordMinLength: number;
  error?: string;
}

export const ResetPasswordPage = asPage(function ResetPasswordPage({ csrfToken, token, email, passwordMinLength, error }: ResetPasswordPageProps) {
  const { t, rich } = useI18n();
  return (
    <Layout title={t('reset.title')}>
      <div class="card">
        <h1>{t('reset.title')}</h1>
        <p>{rich('reset.lead', { email: <strong>{email}</strong> })}</p>
        <form method="post" action="/reset-password" novalidate>
          <CsrfField token={csrfToken} />
          <input type="hidden" name="token" value={token} />
          {/* Lets password managers file the new password under the right account. */}
          <input type="hidden" name="username" value={email} autocomplete="username" />
          <Field
            id="password"
            name="password"
            label={t('reset.password')}
            type="password"
            autocomplete="new-password"
            required
            error={error}
            autofocus
            hint={t('reset.passwordHint', { count: passwordMinLength })}
          />
          <div class="actions">
            <button type="submit">{t('reset.submit')}</button>
          </div>
        </form>
      </div>
    </Layout>
  );
});

/** A reset link that expired, was used, or belongs to an address the account no longer has. */
export const ResetLinkNotUsablePage = asPage(function ResetLinkNotUsablePage(_props: object) {
  const { t } = useI18n();
  return (
    <MessagePage title={t('reset.expired.title')} tone="error" action={{ href: '/forgot-password', label: t('reset.expired.action') }}>
      <p>{t('reset.expired.text')}</p>
    </MessagePage>
  );
});
