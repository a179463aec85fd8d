import { CsrfField, Field } from '../components/field.js';
import { Layout } from '../layout.js';

export interface ForgotPasswordPageProps {
  csrfToken: string;
  email?: string;
  error?: string;
}

export function ForgotPasswordPage({ csrfToken, email, error }: ForgotPasswordPageProps) {
  return (
    <Layout title="Reset your password">
      <div class="card">
        <h1>Reset your password</h1>
        <p>Enter the email address of your account. We will send you a link to choose a new password.</p>
        <form method="post" action="/forgot-password" novalidate>
          <CsrfField token={csrfToken} />
          <Field id="email" name="email" label="Email" type="email" autocomplete="email" required value={email} error={error} autofocus />
          <div class="actions">
            <button type="submit">Send reset link</button>
          </div>
        </form>
        <p class="hint">
          Remembered it? <a href="/login">Sign in</a>
        </p>
      </div>
    </Layout>
  );
}
