import { CsrfField } from '../components/field.js';
import { Notice } from '../components/notice.js';
import { AppBanner, type AppBannerProps } from '../components/app-banner.js';
import { Layout } from '../layout.js';
import { PasskeyStatus } from '../components/passkey-status.js';
import { asPage, useBrandName, useI18n } from '../page-context.js';

/** What the sign-in page confirms, chosen by its key (`?notice=password-reset`): no text comes from the URL. */
export const SIGN_IN_NOTICES = {
  'password-reset': 'signIn.notice.passwordReset',
  'signed-out-everywhere': 'signIn.notice.signedOutEverywhere',
} as const;
export type SignInNotice = keyof typeof SIGN_IN_NOTICES;

/**
 * Why a sign-in was refused. A wrong password and an unknown email are the same answer (OWASP Authentication
 * Cheat Sheet): the page never says which.
 */
const PROBLEMS = {
  missing: 'signIn.problem.missing',
  wrong: 'signIn.problem.wrong',
  throttled: 'signIn.problem.throttled',
} as const;
export type SignInProblem = keyof typeof PROBLEMS;

export interface SignInPageProps {
  csrfToken: string;
  returnTo: string;
  email?: string | undefined;
  error?: SignInProblem | undefined;
  /** The app of the authorization request this sign-in returns to (accounts/requesting-app.ts). */
  app?: AppBannerProps['app'];
  /** A confirmation to show above the form (e.g. after a password reset). */
  notice?: SignInNotice | undefined;
  signupEnabled?: boolean;
}

/**
 * Inputs labelled "Email" and "Password", submit button "Sign in"; works without JavaScript
 * (docs/protocol-decisions.md "Pages").
 */
export const SignInPage = asPage(function SignInPage({ csrfToken, returnTo, email, error, app, notice, signupEnabled }: SignInPageProps) {
  const { t } = useI18n();
  const brand = useBrandName();
  const signUpHref = returnTo === '/' ? '/signup' : `/signup?return_to=${encodeURIComponent(returnTo)}`;
  return (
    <Layout title={t('signIn.title')} current="login">
      <div class="card">
        <h1>{t('signIn.title')}</h1>
        <AppBanner app={app} />
        <Notice>{notice && !error && t(SIGN_IN_NOTICES[notice], { brand })}</Notice>
        {error ? (
          <p class="alert error" role="alert" id="signin-error">
            {t(PROBLEMS[error])}
          </p>
        ) : null}
        <form method="post" action="/login" novalidate>
          <CsrfField token={csrfToken} />
          <input type="hidden" name="return_to" value={returnTo} />
          <label for="email">{t('signIn.email')}</label>
          <input
            id="email"
            name="email"
            type="email"
            // "webauthn": the browser may offer the account's passkeys right in this field's autofill (conditional UI).
            autocomplete="username webauthn"
            required
            value={email ?? ''}
            aria-describedby={error ? 'signin-error' : undefined}
            autofocus={!email}
          />
          <label for="password">{t('signIn.password')}</label>
          <input id="password" name="password" type="password" autocomplete="current-password" required autofocus={!!email} />
          <div class="actions">
            <button type="submit">{t('signIn.submit')}</button>
          </div>
        </form>
        <div class="actions">
          <button type="button" class="secondary" data-passkey="sign-in" data-action="/login/passkey" data-return-to={returnTo} data-status="passkey-status" hidden>
            {t('signIn.passkey')}
          </button>
        </div>
        <PasskeyStatus />
        <script src="/assets/passkeys.js" defer />
        <p class="hint">
          <a href="/forgot-password">{t('signIn.forgot')}</a>
          {signupEnabled ? (
            <>
              {' · '}
              <a href={signUpHref}>{t('signIn.createAccount')}</a>
            </>
          ) : null}
        </p>
      </div>
    </Layout>
  );
});
