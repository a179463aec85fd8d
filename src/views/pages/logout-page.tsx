/**
 * The pages of the logout endpoint (OIDC RP-Initiated Logout 1.0; docs/protocol-decisions.md "Logout"): the
 * question before signing out ("Sign out of Latch?", one button "Sign out", a plain CSRF-protected form that works
 * without JavaScript), the answer after it ("You are signed out"), and a request Latch cannot follow (400), which
 * still lets a signed-in person sign out instead of leaving them at a dead end.
 */
import { PostButton } from '../components/post-button.js';
import { Layout } from '../layout.js';
import { asPage, useBrandName, useI18n } from '../page-context.js';

/** Where the confirmation form posts, with the fields that say where to go afterwards. */
export const LOGOUT_CONFIRM_ACTION = '/oauth2/logout/confirm';

export interface LogoutConfirmPageProps {
  csrfToken: string;
  userEmail: string;
  /** The app that sent the person here, when the request names one. */
  appName: string | null;
  /** client_id, post_logout_redirect_uri and state, posted back and checked again. */
  fields: Readonly<Record<string, string>>;
}

export const LogoutConfirmPage = asPage(function LogoutConfirmPage({ csrfToken, userEmail, appName, fields }: LogoutConfirmPageProps) {
  const { t, rich } = useI18n();
  const brand = useBrandName();
  return (
    <Layout title={t('logout.title', { brand })} signedIn>
      <div class="card">
        <h1>{t('logout.title', { brand })}</h1>
        <p>
          {appName ? (
            <>
              {rich('logout.asks', { app: <span class="client-name">{appName}</span>, brand })}{' '}
            </>
          ) : null}
          {rich('logout.signedInAs', { email: <strong>{userEmail}</strong> })}
        </p>
        <PostButton action={LOGOUT_CONFIRM_ACTION} csrfToken={csrfToken} label={t('logout.signOut')} variant="primary" fields={fields}>
          <p class="muted">{t('logout.inThisBrowser', { brand })}</p>
        </PostButton>
        <p>
          <a href="/">{t('logout.stay')}</a>
        </p>
      </div>
    </Layout>
  );
});

export interface SignedOutPageProps {
  /** The app the request named, with its homepage when it has one: a way back. */
  app: { name: string; homepageUrl: string | null } | null;
}

export const SignedOutPage = asPage(function SignedOutPage({ app }: SignedOutPageProps) {
  const { t } = useI18n();
  const brand = useBrandName();
  return (
    <Layout title={t('logout.done.title')} signedIn={false}>
      <div class="card" role="status">
        <h1>{t('logout.done.title')}</h1>
        <p>{t('logout.done.text', { brand })}</p>
        <div class="actions">
          {app?.homepageUrl ? (
            <a class="button" href={app.homepageUrl} rel="noopener noreferrer">
              {t('logout.done.backTo', { app: app.name })}
            </a>
          ) : null}
          <a class={app?.homepageUrl ? 'button secondary' : 'button'} href="/login">
            {t('logout.done.signInAgain')}
          </a>
        </div>
      </div>
    </Layout>
  );
});

export interface LogoutErrorPageProps {
  description: string;
  requestId: string;
  /** Set when the browser is signed in: the person may still sign out of Latch (nowhere else to go afterwards). */
  signOut: { csrfToken: string } | null;
}

export const LogoutErrorPage = asPage(function LogoutErrorPage({ description, requestId, signOut }: LogoutErrorPageProps) {
  const { t, rich } = useI18n();
  const brand = useBrandName();
  return (
    <Layout title={t('logout.error.title')} signedIn={signOut !== null}>
      <div class="card" role="alert">
        <h1>{t('logout.error.title')}</h1>
        <p>{t('logout.error.text')}</p>
        {/* The exact reason is for the app's developer: folded away, below the plain words (issue 19 item 2). */}
        <details>
          <summary>{t('logout.error.details')}</summary>
          {/* OAuth's error_description, in English on every page (docs/protocol-decisions.md "Languages"): said so. */}
          <p lang="en">{description}</p>
        </details>
        <p class="hint">
          {rich('error.requestId', { id: <code>{requestId}</code> })}
        </p>
        {signOut ? (
          <PostButton action={LOGOUT_CONFIRM_ACTION} csrfToken={signOut.csrfToken} label={t('logout.signOut')}>
            <p>{t('logout.error.canSignOut', { brand })}</p>
          </PostButton>
        ) : (
          <p>
            <a href="/">{t('error.startPage')}</a>
          </p>
        )}
      </div>
    </Layout>
  );
});
