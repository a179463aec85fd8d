import { PASSWORD_MIN_LENGTH } from '../../accounts/account-rules.js';
import { CsrfField, Field } from '../components/field.js';
import { Layout } from '../layout.js';

export interface ResetPasswordPageProps {
  csrfToken: string;
  token: string;
  email: string;
  error?: string;
}

export function ResetPasswordPage({ csrfToken, token, email, error }: ResetPasswordPageProps) {
  return (
    <Layout title="Choose a new password">
      <div class="card">
        <h1>Choose a new password</h1>
        <p>
          For the account <strong>{email}</strong>. Setting a new password signs you out everywhere.
        </p>
        <form method="post" action="/reset-password" novalidate>
          <CsrfField token={csrfToken} />
          <input type="hidden" name="token" value={token} />
          {/* Lets password managers file the new password under the right account. */}
          <input type="hidden" name="username" value={email} autocomplete="username" />
          <Field
            id="password"
            name="password"
            label="New password"
            type="password"
            autocomplete="new-password"
            required
            error={error}
            autofocus
            hint={`At least ${PASSWORD_MIN_LENGTH} characters. A few unrelated words make a strong password.`}
          />
          <div class="actions">
            <button type="submit">Set new password</button>
          </div>
        </form>
      </div>
    </Layout>
  );
}
