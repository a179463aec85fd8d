/**
 * The /device pages (RFC 8628 §3.3): where a signed-in person types the code their device shows, and what they
 * see once they have decided. The consent step in between is the consent page (consent-page.tsx, `device`).
 */
import { CsrfField, Field } from '../components/field.js';
import { Layout } from '../layout.js';
import { MessagePage } from './message-page.js';

export interface DeviceCodePageProps {
  csrfToken: string;
  userEmail: string;
  /** What is in the field: from verification_uri_complete, or what was typed before an error. */
  userCode?: string;
  /** The code came filled in from a link or QR code: the person should compare it with the device (§3.3.1). */
  prefilled?: boolean;
  error?: string;
}

export function DeviceCodePage({ csrfToken, userEmail, userCode, prefilled, error }: DeviceCodePageProps) {
  return (
    <Layout title="Connect a device" signedIn inFlow>
      <div class="card">
        <h1>Connect a device</h1>
        <p>
          Enter the code shown on your device (a TV, a console or a command-line tool) to let it use your account. You are signed in as{' '}
          <strong>{userEmail}</strong>.
        </p>
        <form method="post" action="/device" novalidate>
          <CsrfField token={csrfToken} />
          <Field
            id="user-code"
            name="user_code"
            label="Code"
            hint={prefilled ? 'Check that this is the code your device shows right now.' : 'Eight letters, like BCDF-GHJK; the dash is optional.'}
            autocomplete="off"
            spellcheck={false}
            required
            value={userCode}
            error={error}
            autofocus
          />
          <div class="actions">
            <button type="submit">Continue</button>
          </div>
        </form>
        <p class="hint">Only enter a code from a device you are using yourself. Never enter a code someone sent you.</p>
      </div>
    </Layout>
  );
}

/** After "Allow": the device picks its tokens up on its next poll. */
export function DeviceApprovedPage({ clientName }: { clientName: string }) {
  return (
    <MessagePage title="Device connected" tone="ok" signedIn>
      <p>
        <strong>{clientName}</strong> can now use your account. Go back to your device: it continues on its own in a few seconds.
      </p>
      <p class="hint">
        You can remove this access at any time from your <a href="/account">account page</a>.
      </p>
    </MessagePage>
  );
}

/** After "Deny". */
export function DeviceDeniedPage({ clientName }: { clientName: string }) {
  return (
    <MessagePage title="Request denied" signedIn>
      <p>
        <strong>{clientName}</strong> was not given access to your account. You can close this page.
      </p>
    </MessagePage>
  );
}
