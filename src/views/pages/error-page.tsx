import { Layout } from '../layout.js';
import { translatedPage, useI18n, usePageContext } from '../page-context.js';

export interface ErrorPageProps {
  /** What happened, in a few words ("Page not found"). */
  heading: string;
  /** What happened and what to do, in sentences for the person: never an OAuth code or a parameter name. */
  description: string;
  requestId: string;
  /** The app that sent the person here, when the request named a registered one: its homepage is the way back. */
  app?: { name: string; homepageUrl: string | null } | undefined;
}

/**
 * Shown instead of a redirect when the app's request cannot be trusted, and for errors on the pages themselves.
 * It says what happened in plain words and offers a way on: back to the app when its homepage is known, the
 * start page, and the account (or sign-in). The request id is there for support and for the app's developer:
 * the technical reason is logged with it and listed in the app's failed requests in the developer console.
 */
export const ErrorPage = translatedPage(function ErrorPage({ heading, description, requestId, app }: ErrorPageProps) {
  const { signedIn } = usePageContext();
  const { t, rich } = useI18n();
  return (
    <Layout title={heading}>
      <div class="card" role="alert">
        <h1>{heading}</h1>
        <p>{description}</p>
        <ul class="ways-on">
          {app?.homepageUrl ? (
            <li>
              <a href={app.homepageUrl} rel="noopener noreferrer">
                {t('error.backTo', { app: app.name })}
              </a>
            </li>
          ) : null}
          <li>
            <a href="/">{t('error.startPage')}</a>
          </li>
          <li>{signedIn ? <a href="/account">{t('error.account')}</a> : <a href="/login">{t('error.signIn')}</a>}</li>
        </ul>
        <p class="hint">
          {rich('error.requestId', { id: <code>{requestId}</code> })}
          {app ? ` ${t('error.requestIdDeveloper', { app: app.name })}` : null}
        </p>
      </div>
    </Layout>
  );
});
