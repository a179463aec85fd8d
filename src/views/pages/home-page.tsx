import { PostButton } from '../components/post-button.js';
import { Layout } from '../layout.js';
import { asPage, useBrandName, useI18n } from '../page-context.js';

export interface HomePageProps {
  user: { name: string; email: string } | null;
  csrfToken: string;
  signupEnabled?: boolean;
}

export const HomePage = asPage(function HomePage({ user, csrfToken, signupEnabled }: HomePageProps) {
  const { t, rich } = useI18n();
  const brand = useBrandName();
  return (
    <Layout title={(brandName) => brandName} signedIn={!!user}>
      <div class="card">
        <h1>{brand}</h1>
        {user ? (
          <>
            <p>{rich('home.signedInAs', { name: <strong>{user.name}</strong>, email: user.email })}</p>
            <div class="actions">
              <a class="button" href="/account">
                {t('home.account')}
              </a>
              <a class="button secondary" href="/developer">
                {t('home.developer')}
              </a>
            </div>
            <PostButton action="/logout" csrfToken={csrfToken} label={t('home.signOut')} />
          </>
        ) : (
          <>
            <p>{t('home.lead', { brand })}</p>
            <div class="actions">
              <a class="button" href="/login">
                {t('home.signIn')}
              </a>
              {signupEnabled ? (
                <a class="button secondary" href="/signup">
                  {t('home.createAccount')}
                </a>
              ) : null}
            </div>
          </>
        )}
      </div>
    </Layout>
  );
});
