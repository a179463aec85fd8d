import { CsrfField, Field } from '../components/field.js';
import { Layout } from '../layout.js';
import { asPage, useBrandName, useI18n } from '../page-context.js';
import { MessagePage } from './message-page.js';

export interface ForgotPasswordPageProps {
  csrfToken: string;
  email?: string;
  error?: string;
}

export const ForgotPasswordPage = asPage(function ForgotPasswordPage({ csrfToken, email, error }: ForgotPasswordPageProps) {
  const { t } = useI18n();
  return (
    <Layout title={t('forgot.title')}>
      <div class="card">
        <h1>{t('forgot.title')}</h1>
        <p>{t('forgot.lead')}</p>
        <form method="post" action="/forgot-password" novalidate>
          <CsrfField token={csrfToken} />
          <Field id="email" name="email" label={t('forgot.email')} type="email" autocomplete="email" required value={email} error={error} autofocus />
          <div class="actions">
            <button type="submit">{t('forgot.submit')}</button>
          </div>
        </form>
        <p class="hint">
          {t('forgot.remembered')} <a href="/login">{t('forgot.signIn')}</a>
        </p>
      </div>
    </Layout>
  );
});

/** The same answer whether or not the address has an account (OWASP Forgot Password Cheat Sheet). */
/** `localOutbox`: this Latch sends no real mail (no LATCH_SMTP_URL, a local issuer) and keeps it at /dev/outbox. */
export const ResetMailSentPage = asPage(function ResetMailSentPage({ email, localOutbox = false }: { email: string; localOutbox?: boolean }) {
  const { t, rich } = useI18n();
  const brand = useBrandName();
  return (
    <MessagePage title={t('forgot.sent.title')} action={{ href: '/login', label: t('forgot.sent.back') }}>
      <p>{rich('forgot.sent.text', { email: <strong>{email}</strong>, brand })}</p>
      {localOutbox ? <TranslatedLocalOutboxHint /> : null}
    </MessagePage>
  );
});

/** On a Latch that sends no real mail: where its mail is, in the page's language. */
function TranslatedLocalOutboxHint() {
  const { t, rich } = useI18n();
  const brand = useBrandName();
  return (
    <p class="hint" id="local-outbox-hint">
      {rich('forgot.localOutbox', { brand, outbox: <a href="/dev/outbox">{t('forgot.localOutbox.link')}</a> })}
    </p>
  );
}
