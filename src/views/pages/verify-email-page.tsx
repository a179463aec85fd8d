import { CsrfField } from '../components/field.js';
import { Layout } from '../layout.js';
import { BrandName } from '../page-context.js';
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
export function VerifyEmailPage({ csrfToken, token, email }: VerifyEmailPageProps) {
  return (
    <Layout title="Confirm your email address">
      <div class="card">
        <h1>Confirm your email address</h1>
        <p>
          Confirm that <strong>{email}</strong> is your email address.
        </p>
        <form method="post" action="/verify-email">
          <CsrfField token={csrfToken} />
          <input type="hidden" name="token" value={token} />
          <div class="actions">
            <button type="submit">Confirm email address</button>
          </div>
        </form>
      </div>
    </Layout>
  );
}

/** After the confirm button: the address is verified. */
export function EmailConfirmedPage({ email, signedIn }: { email: string; signedIn: boolean }) {
  return (
    <MessagePage title="Email address confirmed" tone="ok" signedIn={signedIn} action={signedIn ? { href: '/account', label: 'Go to your account' } : { href: '/login', label: 'Sign in' }}>
      <p>
        Thank you: <strong>{email}</strong> is confirmed. Applications you sign in to with <BrandName /> will see it as verified.
      </p>
    </MessagePage>
  );
}

/** A confirmation link that expired, was used, or belongs to an address the account no longer has. */
export function EmailLinkNotUsablePage({ signedIn }: { signedIn: boolean }) {
  return (
    <MessagePage title="This link no longer works" tone="error" signedIn={signedIn} action={{ href: '/account', label: 'Go to your account' }}>
      <p>
        The link has expired or was already used. {signedIn ? 'Ask for a new one on your account page.' : 'Sign in and ask for a new one on your account page.'}
      </p>
    </MessagePage>
  );
}
