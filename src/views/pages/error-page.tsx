import { Layout } from '../layout.js';

export interface ErrorPageProps {
  code: string;
  description: string;
  requestId: string;
}

/** Shown instead of a redirect when the client or redirect_uri cannot be trusted, and for page errors. */
export function ErrorPage({ code, description, requestId }: ErrorPageProps) {
  return (
    <Layout title="Something went wrong">
      <div class="card" role="alert">
        <h1>Something went wrong</h1>
        <p>{description}</p>
        <p class="muted">
          Error <code>{code}</code> · Request id <code>{requestId}</code>
        </p>
        <p class="hint">
          If you came here from an application, go back to it and try again. If you develop that application, the request id
          above appears in its failed-request log on Latch.
        </p>
      </div>
    </Layout>
  );
}
