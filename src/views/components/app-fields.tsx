/**
 * The fields that describe an app, the same when it is registered and when its settings change: name, redirect
 * URLs, homepage and logo, and where people and Latch's server go when someone signs out (post-logout redirect
 * URLs, OIDC RP-Initiated Logout 1.0 §3.1; back-channel logout URL, OIDC Back-Channel Logout 1.0 §2.2). The
 * redirect URL hint is the one wording of the rules (redirect-url-rules.tsx): exact comparison, except that a
 * loopback IP URL matches any port (RFC 8252 §7.3); post-logout redirect URLs have no such exception.
 */
import { useI18n } from '../page-context.js';
import { Field } from './field.js';

export type AppField = 'name' | 'redirectUris' | 'homepageUrl' | 'logoUrl' | 'policyUrl' | 'termsUrl' | 'postLogoutRedirectUris' | 'backchannelLogoutUri';

export interface AppFieldsProps {
  values: Partial<Record<AppField, string>>;
  /** Each field's problems, told in the page's language by the route. */
  errors: Partial<Record<AppField, string>>;
}

/**
 * Registration only (a client's kind does not change later): a web app with a back end gets a secret; a
 * single-page or mobile app is a public client (token_endpoint_auth_method none), with no secret and PKCE.
 */
export function AppTypeField({ value }: { value: string | undefined }) {
  const { t } = useI18n();
  const isPublic = value === 'public';
  return (
    <fieldset>
      <legend>{t('developer.appType')}</legend>
      <label class="checkbox">
        <input type="radio" name="app_type" value="web" checked={!isPublic} />
        {t('developer.appType.web')}
      </label>
      <label class="checkbox">
        <input type="radio" name="app_type" value="public" checked={isPublic} />
        {t('developer.appType.public')}
      </label>
    </fieldset>
  );
}

export function AppFields({ values, errors }: AppFieldsProps) {
  const { t } = useI18n();
  return (
    <>
      <Field id="app_name" name="name" label={t('developer.field.name')} required value={values.name} error={errors.name} hint={t('developer.field.nameHint')} />
      <Field
        id="redirect_uris"
        name="redirect_uris"
        label={t('developer.field.redirectUris')}
        multiline
        required
        spellcheck={false}
        value={values.redirectUris}
        error={errors.redirectUris}
        hint={t('developer.redirectRules')}
      />
      <Field id="homepage_url" name="homepage_url" label={t('developer.field.homepage')} type="url" value={values.homepageUrl} error={errors.homepageUrl} />
      <Field id="logo_url" name="logo_url" label={t('developer.field.logo')} type="url" value={values.logoUrl} error={errors.logoUrl} hint={t('developer.field.logoHint')} />
      <Field id="policy_url" name="policy_url" label={t('developer.field.policy')} type="url" value={values.policyUrl} error={errors.policyUrl} hint={t('developer.field.policyHint')} />
      <Field id="terms_url" name="terms_url" label={t('developer.field.terms')} type="url" value={values.termsUrl} error={errors.termsUrl} hint={t('developer.field.termsHint')} />
      <Field
        id="post_logout_redirect_uris"
        name="post_logout_redirect_uris"
        label={t('developer.field.postLogout')}
        multiline
        spellcheck={false}
        value={values.postLogoutRedirectUris}
        error={errors.postLogoutRedirectUris}
        hint={t('developer.field.postLogoutHint')}
      />
      <Field
        id="backchannel_logout_uri"
        name="backchannel_logout_uri"
        label={t('developer.field.backchannel')}
        type="url"
        spellcheck={false}
        value={values.backchannelLogoutUri}
        error={errors.backchannelLogoutUri}
        hint={t('developer.field.backchannelHint')}
      />
    </>
  );
}
