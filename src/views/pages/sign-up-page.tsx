import { AppBanner, type AppBannerProps } from '../components/app-banner.js';
import { CsrfField, Field } from '../components/field.js';
import { Layout } from '../layout.js';
import { asPage, useI18n } from '../page-context.js';

export interface SignUpPageProps {
  csrfToken: string;
  returnTo: string;
  /** The app of the authorization request this sign-up returns to (accounts/requesting-app.ts). */
  app?: AppBannerProps['app'];
  /** Shown in the password field's hint; the rule itself is checked by the route. */
  passwordMinLength: number;
  values: { name?: string; email?: string };
  errors: Partial<Record<'name' | 'email' | 'password', string>>;
}

export const SignUpPage = asPage(function SignUpPage({ csrfToken, returnTo, app, passwordMinLength, values, errors }: SignUpPageProps) {
  const { t } = useI18n();
  const signInHref = returnTo === '/' ? '/login' : `/login?return_to=${encodeURIComponent(returnTo)}`;
  return (
    <Layout title={t('signUp.title')}>
      <div class="card">
        <h1>{t('signUp.title')}</h1>
        <AppBanner app={app} />
        {Object.keys(errors).length > 0 ? (
          <p class="alert error" role="alert">
            {t('signUp.fixFields', { count: Object.keys(errors).length })}
          </p>
        ) : null}
        <form method="post" action="/signup" novalidate>
          <CsrfField token={csrfToken} />
          <input type="hidden" name="return_to" value={returnTo} />
          <Field id="name" name="name" label={t('signUp.name')} autocomplete="name" required value={values.name} error={errors.name} autofocus={!errors.email && !errors.password} />
          <Field id="email" name="email" label={t('signUp.email')} type="email" autocomplete="email" required value={values.email} error={errors.email} hint={t('signUp.emailHint')} />
          <Field
            id="password"
            name="password"
            label={t('signUp.password')}
            type="password"
            autocomplete="new-password"
            required
            error={errors.password}
            hint={t('signUp.passwordHint', { count: passwordMinLength })}
          />
          <div class="actions">
            <button type="submit">{t('signUp.submit')}</button>
          </div>
        </form>
        <p class="hint">
          {t('signUp.haveAccount')} <a href={signInHref}>{t('signUp.signIn')}</a>
        </p>
      </div>
    </Layout>
  );
});
