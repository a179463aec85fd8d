/**
 * The second step of a sign-in (/login/two-step), after a correct password and before the session exists: a
 * code from the authenticator app, or a recovery code one click away. Works without JavaScript.
 */
import { CsrfField } from '../components/field.js';
import { Layout } from '../layout.js';

const PROBLEMS = {
  wrong: 'That code is not right, or was already used. Try the newest code.',
  'wrong-recovery': 'That recovery code is not right, or was already used.',
  throttled: 'Too many failed attempts. Wait a few minutes, then try again.',
} as const;
export type TwoStepSignInProblem = keyof typeof PROBLEMS;

export interface TwoStepSignInPageProps {
  csrfToken: string;
  method: 'app' | 'recovery';
  error?: TwoStepSignInProblem | undefined;
  /** The account has passkeys: one can be the second step. */
  hasPasskeys?: boolean;
  /**
   * An app asked for a stronger sign-in than this session's (step-up, session/authentication-methods.ts): which
   * second steps reach it. `passkey` and `device-bound passkey` leave out the codes.
   */
  stepUp?: 'any' | 'passkey' | 'device-bound passkey' | undefined;
  /** The account has an authenticator app; without one (passkeys only), the passkey is the second step. */
  hasApp?: boolean;
}

const STEP_UP_LEADS = {
  any: 'The app you are signing in to asks for a second step.',
  passkey: 'The app you are signing in to asks you to confirm with a passkey.',
  'device-bound passkey': 'The app you are signing in to asks you to confirm with a passkey that cannot leave its device, such as a security key.',
} as const;

export function TwoStepSignInPage({ csrfToken, method, error, hasPasskeys, stepUp, hasApp = true }: TwoStepSignInPageProps) {
  const app = method === 'app';
  const stepUpNeedsPasskey = stepUp === 'passkey' || stepUp === 'device-bound passkey';
  if (stepUpNeedsPasskey || (!hasApp && app)) {
    return (
      <Layout title="Two-step verification">
        <div class="card">
          <h1>Two-step verification</h1>
          <p class="lead">{stepUpNeedsPasskey ? STEP_UP_LEADS[stepUp] : 'Confirm it is you with your passkey.'}</p>
          {/* The passkey script sends the page's CSRF token with its requests (there is no other form here). */}
          <CsrfField token={csrfToken} />
          <div class="actions">
            <button type="button" data-passkey="second-factor" data-action="/login/two-step/passkey" data-status="passkey-status" hidden>
              Use a passkey
            </button>
          </div>
          <p id="passkey-status" aria-live="polite" class="hint" />
          <noscript>
            <p class="hint">Passkeys need JavaScript: turn it on{stepUpNeedsPasskey ? '' : ', or use a recovery code'}.</p>
          </noscript>
          <script src="/assets/passkeys.js" defer />
          <p class="hint">
            {stepUpNeedsPasskey ? null : (
              <>
                <a href="/login/two-step?method=recovery">Use a recovery code</a>
                {' · '}
              </>
            )}
            <a href="/login">Start over</a>
          </p>
        </div>
      </Layout>
    );
  }
  return (
    <Layout title="Two-step verification">
      <div class="card">
        <h1>Two-step verification</h1>
        {stepUp ? <p>{STEP_UP_LEADS[stepUp]}</p> : null}
        <p class="lead">{app ? 'Enter the 6-digit code from your authenticator app.' : 'Enter one of your recovery codes. Each code works once.'}</p>
        {error ? (
          <p class="alert error" role="alert" id="two-step-error">
            {PROBLEMS[error]}
          </p>
        ) : null}
        <form method="post" action="/login/two-step" novalidate>
          <CsrfField token={csrfToken} />
          <input type="hidden" name="method" value={method} />
          <label for="code">{app ? '6-digit code' : 'Recovery code'}</label>
          <input
            id="code"
            name="code"
            type="text"
            autocomplete={app ? 'one-time-code' : 'off'}
            inputmode={app ? 'numeric' : 'text'}
            spellcheck={false}
            required
            autofocus
            aria-describedby={error ? 'two-step-error' : undefined}
            aria-invalid={error ? 'true' : undefined}
          />
          <div class="actions">
            <button type="submit">Verify</button>
          </div>
        </form>
        {hasPasskeys ? (
          <>
            <div class="actions">
              <button type="button" class="secondary" data-passkey="second-factor" data-action="/login/two-step/passkey" data-status="passkey-status" hidden>
                Use a passkey
              </button>
            </div>
            <p id="passkey-status" aria-live="polite" class="hint" />
            <script src="/assets/passkeys.js" defer />
          </>
        ) : null}
        <p class="hint">
          {app ? <a href="/login/two-step?method=recovery">Use a recovery code</a> : <a href="/login/two-step">{hasApp ? 'Use your authenticator app' : 'Use your passkey'}</a>}
          {' · '}
          <a href="/login">Start over</a>
        </p>
      </div>
    </Layout>
  );
}
