import { CsrfField } from '../components/field.js';
import { Layout } from '../layout.js';
import { asPage, useBrandName, useI18n } from '../page-context.js';
import { MessagePage } from './message-page.js';

export interface VerifyEmailPageProps {
  csrfToken: string;
  token: string;
  email: string;
}

/**
 * The link in the mail opens this page, and the button confirms. The link is not used on GET because mail
 * scanners and link previews fetch links by themselves, which would use up a single-use link.
 */
export const VerifyEmailPage = asPage(function VerifyEmailPage({ csrfToken, token, email }: VerifyEmailPageProps) {
  const { t, rich } = useI18n();
  return (
    <Layout title={t('verify.title')}>
      <div class="card">
        <h1>{t('verify.title')}</h1>
        <p>{rich('verify.lead', { email: <strong>{email}</strong> })}</p>
        <form method="post" action="/verify-email">
          <CsrfField token={csrfToken} />
          <input type="hidden" name="token" value={token} />
          <div class="actions">
            <button type="submit">{t('verify.submit')}</button>
          </div>
        </form>
      </div>
    </Layout>
  );
});

/** After the confirm button: the address is verified. */
export const EmailConfirmedPage = asPage(function EmailConfirmedPage({ email, signedIn }: { email: string; signedIn: boolean }) {
  const { t, rich } = useI18n();
  const brand = useBrandName();
  return (
    <MessagePage
      title={t('verify.done.title')}
      tone="ok"
      signedIn={signedIn}
      action={signedIn ? { href: '/account', label: t('verify.account') } : { href: '/login', label: t('verify.signIn') }}
    >
      <p>{rich('verify.done.text', { email: <strong>{email}</strong>, brand })}</p>
    </MessagePage>
  );
});

/** A confirmation link that expired, was used, or belongs to an address the account no longer has. */
export const EmailLinkNotUsablePage = asPage(function EmailLinkNotUsablePage({ signedIn }: { signedIn: boolean }) {
  const { t } = useI18n();
  return (
    <MessagePage title={t('verify.expired.title')} tone="error" signedIn={signedIn} action={{ href: '/account', label: t('verify.account') }}>
      <p>{signedIn ? t('verify.expired.signedIn') : t('verify.expired.signedOut')}</p>
    </MessagePage>
  );
});
