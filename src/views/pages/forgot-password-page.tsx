import { CsrfField, Field } from '../components/field.js';
import { Layout } from '../layout.js';
import { BrandName } from '../page-context.js';
import { MessagePage } from './message-page.js';

/** Too many reset requests from one address: the page says so without telling anything about the account. */
export const TOO_MANY_RESET_REQUESTS = 'Too many reset requests from your network. Try again in an hour.';

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

/** The same answer whether or not the address has an account (OWASP Forgot Password Cheat Sheet). */
/** `localOutbox`: this Latch sends no real mail (no LATCH_SMTP_URL, a local issuer) and keeps it at /dev/outbox. */
export function ResetMailSentPage({ email, localOutbox = false }: { email: string; localOutbox?: boolean }) {
  return (
    <MessagePage title="Check your email" action={{ href: '/login', label: 'Back to sign in' }}>
      <p>
        If <strong>{email}</strong> belongs to a <BrandName /> account, we sent it a link to choose a new password. The link works once, for a
        limited time. No mail? Check your spam folder, or make sure you typed the address you signed up with.
      </p>
      {localOutbox ? <LocalOutboxHint /> : null}
    </MessagePage>
  );
}

/** On a Latch that sends no real mail: where its mail is. */
export function LocalOutboxHint() {
  return (
    <p class="hint" id="local-outbox-hint">
      This Latch sends no real mail (LATCH_SMTP_URL is not set): its mail is in the <a href="/dev/outbox">development outbox</a>.
    </p>
  );
}
