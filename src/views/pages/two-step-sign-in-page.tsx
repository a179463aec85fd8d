/**
 * The second step of a sign-in (/login/two-step), after a correct password and before the session exists: a
 * code from the authenticator app, or a recovery code one click away. Works without JavaScript.
 */
import { CsrfField } from '../components/field.js';
import { Layout } from '../layout.js';
import { PasskeyStatus } from '../components/passkey-status.js';
import { asPage, useI18n } from '../page-context.js';

const PROBLEMS = {
  wrong: 'twoStep.problem.wrong',
  'wrong-recovery': 'twoStep.problem.wrongRecovery',
  throttled: 'twoStep.problem.throttled',
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
  any: 'twoStep.stepUp.any',
  passkey: 'twoStep.stepUp.passkey',
  'device-bound passkey': 'twoStep.stepUp.deviceBoundPasskey',
} as const;

export const TwoStepSignInPage = asPage(function TwoStepSignInPage({ csrfToken, method, error, hasPasskeys, stepUp, hasApp = true }: TwoStepSignInPageProps) {
  const { t } = useI18n();
  const app = method === 'app';
  const stepUpNeedsPasskey = stepUp === 'passkey' || stepUp === 'device-bound passkey';
  if (stepUpNeedsPasskey || (!hasApp && app)) {
    return (
      <Layout title={t('twoStep.title')}>
        <div class="card">
          <h1>{t('twoStep.title')}</h1>
          <p class="lead">{stepUpNeedsPasskey ? t(STEP_UP_LEADS[stepUp]) : t('twoStep.passkeyLead')}</p>
          {/* The passkey script sends the page's CSRF token with its requests (there is no other form here). */}
          <CsrfField token={csrfToken} />
          <div class="actions">
            <button type="button" data-passkey="second-factor" data-action="/login/two-step/passkey" data-status="passkey-status" hidden>
              {t('twoStep.usePasskey')}
            </button>
          </div>
          <PasskeyStatus />
          <noscript>
            <p class="hint">{stepUpNeedsPasskey ? t('twoStep.noscript') : t('twoStep.noscriptOrRecovery')}</p>
          </noscript>
          <script src="/assets/passkeys.js" defer />
          <p class="hint">
            {stepUpNeedsPasskey ? null : (
              <>
                <a href="/login/two-step?method=recovery">{t('twoStep.useRecoveryCode')}</a>
                {' · '}
              </>
            )}
            <a href="/login">{t('twoStep.startOver')}</a>
          </p>
        </div>
      </Layout>
    );
  }
  return (
    <Layout title={t('twoStep.title')}>
      <div class="card">
        <h1>{t('twoStep.title')}</h1>
        {stepUp ? <p>{t(STEP_UP_LEADS[stepUp])}</p> : null}
        <p class="lead">{app ? t('twoStep.appLead') : t('twoStep.recoveryLead')}</p>
        {error ? (
          <p class="alert error" role="alert" id="two-step-error">
            {t(PROBLEMS[error])}
          </p>
        ) : null}
        <form method="post" action="/login/two-step" novalidate>
          <CsrfField token={csrfToken} />
          <input type="hidden" name="method" value={method} />
          <label for="code">{app ? t('twoStep.appLabel') : t('twoStep.recoveryLabel')}</label>
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
            <button type="submit">{t('twoStep.submit')}</button>
          </div>
        </form>
        {hasPasskeys ? (
          <>
            <div class="actions">
              <button type="button" class="secondary" data-passkey="second-factor" data-action="/login/two-step/passkey" data-status="passkey-status" hidden>
                {t('twoStep.usePasskey')}
              </button>
            </div>
            <PasskeyStatus />
            <script src="/assets/passkeys.js" defer />
          </>
        ) : null}
        <p class="hint">
          {app ? <a href="/login/two-step?method=recovery">{t('twoStep.useRecoveryCode')}</a> : <a href="/login/two-step">{hasApp ? t('twoStep.useApp') : t('twoStep.usePasskeyInstead')}</a>}
          {' · '}
          <a href="/login">{t('twoStep.startOver')}</a>
        </p>
      </div>
    </Layout>
  );
});
