import { CsrfField } from '../components/field.js';
import { Layout } from '../layout.js';

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
