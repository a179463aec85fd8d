/**
 * "Two-step verification" (/account/two-step): the authenticator app (set it up with a QR code or the secret
 * as text, confirmed by a first code; or remove it) and the recovery codes (how many are left; a new set).
 * Plain forms with CSRF tokens: everything works without JavaScript (docs/protocol-decisions.md "Second
 * factors and passkeys").
 */
import type { ComponentChildren } from 'preact';
import { CopyableValue, CsrfField, Field } from '../components/field.js';
import { Notice } from '../components/notice.js';
import { PostButton } from '../components/post-button.js';
import { formatTime } from '../format.js';
import { Layout } from '../layout.js';
import { BrandName } from '../page-context.js';

export const TWO_STEP_NOTICES = {
  'app-removed': 'The authenticator app was removed. Signing in now needs only your password.',
  'passkey-added': 'Your passkey was added. You can now sign in with it, without your password.',
  'passkey-removed': 'The passkey was removed.',
} as const;
export type TwoStepNotice = keyof typeof TWO_STEP_NOTICES;

export type TwoStepField = 'code' | 'removeProof' | 'regenerateProof';

export interface TwoStepPageProps {
  csrfToken: string;
  /** The app in use, or null (then `enrolment` is shown). */
  app: { createdAt: Date; lastUsedAt: Date | null } | null;
  /** A new secret to set up, when there is no app yet. */
  enrolment: { sealed: string; secretGrouped: string; qrDataUri: string; accountName: string } | null;
  recoveryCodesLeft: number;
  /** Registered passkeys, oldest first. */
  passkeys: { credentialId: string; name: string; createdAt: Date; lastUsedAt: Date | null; synced: boolean }[];
  notice?: TwoStepNotice | undefined;
  errors?: Partial<Record<TwoStepField, string>>;
}

/** A form asking for the password or a current code before a change (docs/protocol-decisions.md). */
function ProofForm(props: { action: string; csrfToken: string; id: string; error: string | undefined; button: string; children?: ComponentChildren }) {
  return (
    <form method="post" action={props.action} novalidate>
      <CsrfField token={props.csrfToken} />
      {props.children}
      <Field
        id={props.id}
        name="proof"
        type="password"
        label="Your password or a code from your authenticator app"
        autocomplete="current-password"
        required
        error={props.error}
      />
      <div class="actions">
        <button type="submit" class="secondary">
          {props.button}
        </button>
      </div>
    </form>
  );
}

export function TwoStepPage(props: TwoStepPageProps) {
  const errors = props.errors ?? {};
  return (
    <Layout title="Two-step verification" signedIn current="account">
      <h1>Two-step verification</h1>
      <p class="lead">After your password, <BrandName /> asks for a code from an app on your phone, so that a stolen password alone is not enough.</p>
      <Notice>{props.notice && TWO_STEP_NOTICES[props.notice]}</Notice>
      <section class="card" aria-labelledby="app-heading">
        <h2 id="app-heading">Authenticator app</h2>
        {props.app ? (
          <>
            <p>
              <span class="badge ok">On</span> Added {formatTime(props.app.createdAt)}
              {props.app.lastUsedAt ? `, last used ${formatTime(props.app.lastUsedAt)}` : ''}.
            </p>
            <ProofForm action="/account/two-step/app/remove" csrfToken={props.csrfToken} id="remove-proof" error={errors.removeProof} button="Remove the authenticator app">
              <p class="hint">Removing it also removes your recovery codes: signing in then needs only your password.</p>
            </ProofForm>
          </>
        ) : props.enrolment ? (
          <>
            <p>
              <span class="badge warn">Off</span> Set it up in three steps.
            </p>
            <ol>
              <li>Open an authenticator app on your phone (for example Google Authenticator, Microsoft Authenticator, 1Password or Aegis).</li>
              <li>Scan this QR code with it, or type in the key below.</li>
              <li>Enter the 6-digit code the app shows.</li>
            </ol>
            <img class="qr" src={props.enrolment.qrDataUri} width={200} height={200} alt={`QR code to add Latch (${props.enrolment.accountName}) to an authenticator app`} />
            <label for="totp-secret">Key to type in instead (time-based)</label>
            <CopyableValue id="totp-secret" value={props.enrolment.secretGrouped} label="Key to type in instead" />
            <form method="post" action="/account/two-step/app" novalidate>
              <CsrfField token={props.csrfToken} />
              <input type="hidden" name="enrolment" value={props.enrolment.sealed} />
              <Field id="code" name="code" label="6-digit code from the app" autocomplete="one-time-code" inputmode="numeric" required error={errors.code} spellcheck={false} />
              <div class="actions">
                <button type="submit">Turn on two-step verification</button>
              </div>
            </form>
          </>
        ) : null}
      </section>
      <section class="card" aria-labelledby="recovery-heading">
        <h2 id="recovery-heading">Recovery codes</h2>
        {props.app ? (
          <>
            <p>
              If you lose your phone, sign in with one of your recovery codes instead of a code from the app. Each works once.{' '}
              <strong>{props.recoveryCodesLeft === 1 ? '1 code is left.' : `${props.recoveryCodesLeft} codes are left.`}</strong>
            </p>
            <ProofForm action="/account/two-step/recovery-codes" csrfToken={props.csrfToken} id="regenerate-proof" error={errors.regenerateProof} button="Get new recovery codes">
              <p class="hint">New codes replace the old ones: the old ones stop working.</p>
            </ProofForm>
          </>
        ) : (
          <p>You get ten recovery codes when you turn on two-step verification.</p>
        )}
      </section>
      <section class="card" aria-labelledby="passkeys-heading">
        <h2 id="passkeys-heading">Passkeys</h2>
        <p>A passkey signs you in with your fingerprint, face or device PIN instead of your password. It works only on <BrandName />, so it cannot be phished.</p>
        {props.passkeys.length > 0 ? (
          <ul class="plain">
            {props.passkeys.map((passkey) => (
              <li>
                <div>
                  <strong>{passkey.name}</strong> <span class="badge">{passkey.synced ? 'Synced' : 'This device'}</span>
                  <p class="hint">
                    Added {formatTime(passkey.createdAt)}; {passkey.lastUsedAt ? `last used ${formatTime(passkey.lastUsedAt)}` : 'not used yet'}.
                  </p>
                </div>
                <PostButton action="/account/passkeys/remove" csrfToken={props.csrfToken} label="Remove" ariaLabel={`Remove passkey ${passkey.name}`} fields={{ credential_id: passkey.credentialId }} inline />
              </li>
            ))}
          </ul>
        ) : (
          <p class="hint">You have no passkeys yet.</p>
        )}
        <div class="field">
          <label for="passkey-name">Name for a new passkey</label>
          <p class="hint" id="passkey-name-hint">
            For example “Work laptop” or “Phone”.
          </p>
          <input id="passkey-name" type="text" maxLength={60} aria-describedby="passkey-name-hint" />
        </div>
        <div class="actions">
          <button type="button" data-passkey="register" data-action="/account/passkeys" data-name-input="passkey-name" data-status="passkey-status" hidden>
            Add a passkey
          </button>
        </div>
        <p id="passkey-status" aria-live="polite" class="hint">
          Adding a passkey needs JavaScript.
        </p>
      </section>
      <script src="/assets/passkeys.js" defer />
      <p>
        <a href="/account">Back to your account</a>
      </p>
    </Layout>
  );
}
