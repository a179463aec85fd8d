import { PostButton } from '../components/post-button.js';
import { Layout } from '../layout.js';
import { BrandName } from '../page-context.js';

export interface HomePageProps {
  user: { name: string; email: string } | null;
  csrfToken: string;
  signupEnabled?: boolean;
}

export function HomePage({ user, csrfToken, signupEnabled }: HomePageProps) {
  return (
    <Layout title={(brandName) => brandName} signedIn={!!user}>
      <div class="card">
        <h1>
          <BrandName />
        </h1>
        {user ? (
          <>
            <p>
              Signed in as <strong>{user.name}</strong> ({user.email}).
            </p>
            <div class="actions">
              <a class="button" href="/account">
                Your account
              </a>
              <a class="button secondary" href="/developer">
                Developer console
              </a>
            </div>
            <PostButton action="/logout" csrfToken={csrfToken} label="Sign out" />
          </>
        ) : (
          <>
            <p>Sign in once, and use your account with every application that offers “Sign in with <BrandName />”.</p>
            <div class="actions">
              <a class="button" href="/login">
                Sign in
              </a>
              {signupEnabled ? (
                <a class="button secondary" href="/signup">
                  Create an account
                </a>
              ) : null}
            </div>
          </>
        )}
      </div>
    </Layout>
  );
}
