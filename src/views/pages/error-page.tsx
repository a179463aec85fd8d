import { Layout } from '../layout.js';
import { usePageContext } from '../page-context.js';

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
export function ErrorPage({ heading, description, requestId, app }: ErrorPageProps) {
  const { signedIn } = usePageContext();
  return (
    <Layout title={heading}>
      <div class="card" role="alert">
        <h1>{heading}</h1>
        <p>{description}</p>
        <ul class="ways-on">
          {app?.homepageUrl ? (
            <li>
              <a href={app.homepageUrl} rel="noopener noreferrer">
                Back to {app.name}
              </a>
            </li>
          ) : null}
          <li>
            <a href="/">Go to the start page</a>
          </li>
          <li>{signedIn ? <a href="/account">Go to your account</a> : <a href="/login">Sign in</a>}</li>
        </ul>
        <p class="hint">
          If this keeps happening, quote this request id: <code>{requestId}</code>.
          {app ? ` If you develop ${app.name}, the same id is in its failed requests in the developer console.` : null}
        </p>
      </div>
    </Layout>
  );
}
