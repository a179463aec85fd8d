import { CsrfField, Field } from '../components/field.js';
import { Layout } from '../layout.js';
import { MessagePage } from './message-page.js';

export interface ResetPasswordPageProps {
  csrfToken: string;
  token: string;
  email: string;
  /** Shown in the password field's hint; the rule itself is checked by the route. */
  passwordMinLength: number;
  error?: string;
}

export function ResetPasswordPage({ csrfToken, token, email, passwordMinLength, error }: ResetPasswordPageProps) {
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
            hint={`At least ${passwordMinLength} characters. A few unrelated words make a strong password.`}
          />
          <div class="actions">
            <button type="submit">Set new password</button>
          </div>
        </form>
      </div>
    </Layout>
  );
}

/** A reset link that expired, was used, or belongs to an address the account no longer has. */
export function ResetLinkNotUsablePage() {
  return (
    <MessagePage title="This link no longer works" tone="error" action={{ href: '/forgot-password', label: 'Send a new link' }}>
      <p>The password reset link has expired or was already used. Ask for a new one.</p>
    </MessagePage>
  );
}
