import { Layout } from '../layout.js';

export interface HomePageProps {
  user: { name: string; email: string } | null;
  csrfToken: string;
}

export function HomePage({ user, csrfToken }: HomePageProps) {
  return (
    <Layout title="Latch" signedIn={!!user}>
      <div class="card">
        <h1>Latch</h1>
        {user ? (
          <>
            <p>
              Signed in as <strong>{user.name}</strong> ({user.email}).
            </p>
            <form method="post" action="/logout">
              <input type="hidden" name="_csrf" value={csrfToken} />
              <div class="actions">
                <button type="submit" class="secondary">
                  Sign out
                </button>
              </div>
            </form>
          </>
        ) : (
          <>
            <p>Sign in once, and use your account with every application that offers “Sign in with Latch”.</p>
            <div class="actions">
              <a class="button" href="/login">
                Sign in
              </a>
            </div>
          </>
        )}
      </div>
    </Layout>
  );
}
