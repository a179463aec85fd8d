import { Layout } from '../layout.js';

export interface ErrorPageProps {
  /** The OAuth error code, for the developer of the application that sent the person here; none on Latch's own pages. */
  code?: string | undefined;
  description: string;
  requestId: string;
}

/**
 * Shown instead of a redirect when the client or redirect_uri cannot be trusted (with the OAuth code, for the
 * application's developer), and for errors on Latch's own pages (without one: a person reads what happened).
 */
export function ErrorPage({ code, description, requestId }: ErrorPageProps) {
  return (
    <Layout title="Something went wrong">
      <div class="card" role="alert">
        <h1>Something went wrong</h1>
        <p>{description}</p>
        <p class="muted">
          {code ? (
            <>
              Error <code>{code}</code> ·{' '}
            </>
          ) : null}
          Request id <code>{requestId}</code>
        </p>
        {code ? (
          <p class="hint">
            If you came here from an application, go back to it and try again. If you develop that application, the request id
            above appears in its failed-request log on Latch.
          </p>
        ) : (
          <p class="hint">
            <a href="/">Go to the start page</a>. If this keeps happening, quote the request id above.
          </p>
        )}
      </div>
    </Layout>
  );
}
