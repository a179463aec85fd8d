/**
 * The pages of the logout endpoint (OIDC RP-Initiated Logout 1.0; docs/protocol-decisions.md "Logout"): the
 * question before signing out ("Sign out of Latch?", one button "Sign out", a plain CSRF-protected form that works
 * without JavaScript), the answer after it ("You are signed out"), and a request Latch cannot follow (400), which
 * still lets a signed-in person sign out instead of leaving them at a dead end.
 */
import { PostButton } from '../components/post-button.js';
import { Layout } from '../layout.js';
import { BrandName } from '../page-context.js';

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

export function LogoutConfirmPage({ csrfToken, userEmail, appName, fields }: LogoutConfirmPageProps) {
  return (
    <Layout title={(brandName) => `Sign out of ${brandName}?`} signedIn>
      <div class="card">
        <h1>
          Sign out of <BrandName />?
        </h1>
        <p>
          {appName ? (
            <>
              <span class="client-name">{appName}</span> asks to sign you out of <BrandName />.{' '}
            </>
          ) : null}
          You are signed in as <strong>{userEmail}</strong>.
        </p>
        <PostButton action={LOGOUT_CONFIRM_ACTION} csrfToken={csrfToken} label="Sign out" variant="primary" fields={fields}>
          <p class="muted">You will be signed out of <BrandName /> in this browser.</p>
        </PostButton>
        <p>
          <a href="/">Stay signed in</a>
        </p>
      </div>
    </Layout>
  );
}

export interface SignedOutPageProps {
  /** The app the request named, with its homepage when it has one: a way back. */
  app: { name: string; homepageUrl: string | null } | null;
}

export function SignedOutPage({ app }: SignedOutPageProps) {
  return (
    <Layout title="You are signed out" signedIn={false}>
      <div class="card" role="status">
        <h1>You are signed out</h1>
        <p>You are no longer signed in to <BrandName /> in this browser.</p>
        <div class="actions">
          {app?.homepageUrl ? (
            <a class="button" href={app.homepageUrl} rel="noopener noreferrer">
              Back to {app.name}
            </a>
          ) : null}
          <a class={app?.homepageUrl ? 'button secondary' : 'button'} href="/login">
            Sign in again
          </a>
        </div>
      </div>
    </Layout>
  );
}

export interface LogoutErrorPageProps {
  description: string;
  requestId: string;
  /** Set when the browser is signed in: the person may still sign out of Latch (nowhere else to go afterwards). */
  signOut: { csrfToken: string } | null;
}

export function LogoutErrorPage({ description, requestId, signOut }: LogoutErrorPageProps) {
  return (
    <Layout title="This sign-out request cannot be followed" signedIn={signOut !== null}>
      <div class="card" role="alert">
        <h1>This sign-out request cannot be followed</h1>
        <p>
          The app that sent you here made a mistake in its sign-out request, so you will not be sent back to it from here.
        </p>
        {/* The exact reason is for the app's developer: folded away, below the plain words (issue 19 item 2). */}
        <details>
          <summary>Details for the app's developer</summary>
          <p>{description}</p>
        </details>
        <p class="hint">
          If this keeps happening, quote this request id: <code>{requestId}</code>.
        </p>
        {signOut ? (
          <PostButton action={LOGOUT_CONFIRM_ACTION} csrfToken={signOut.csrfToken} label="Sign out">
            <p>You can still sign out of <BrandName /> here.</p>
          </PostButton>
        ) : (
          <p>
            <a href="/">Go to the start page</a>
          </p>
        )}
      </div>
    </Layout>
  );
}
