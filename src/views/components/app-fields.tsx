/**
 * The fields that describe an app, the same when it is registered and when its settings change: name, redirect
 * URLs, homepage and logo, and where people and Latch's server go when someone signs out (post-logout redirect
 * URLs, OIDC RP-Initiated Logout 1.0 §3.1; back-channel logout URL, OIDC Back-Channel Logout 1.0 §2.2). The
 * redirect URL hint is the one wording of the rules (redirect-url-rules.tsx): exact comparison, except that a
 * loopback IP URL matches any port (RFC 8252 §7.3); post-logout redirect URLs have no such exception.
 */
import { Field } from './field.js';
import { REDIRECT_URL_RULES } from './redirect-url-rules.js';

export type AppField = 'name' | 'redirectUris' | 'homepageUrl' | 'logoUrl' | 'policyUrl' | 'termsUrl' | 'postLogoutRedirectUris' | 'backchannelLogoutUri';

export interface AppFieldsProps {
  values: Partial<Record<AppField, string>>;
  errors: Partial<Record<AppField, string>>;
}

/**
 * Registration only (a client's kind does not change later): a web app with a back end gets a secret; a
 * single-page or mobile app is a public client (token_endpoint_auth_method none), with no secret and PKCE.
 */
export function AppTypeField({ value }: { value: string | undefined }) {
  const isPublic = value === 'public';
  return (
    <fieldset>
      <legend>App type</legend>
      <label class="checkbox">
        <input type="radio" name="app_type" value="web" checked={!isPublic} />
        Web app with a back end (it gets a client secret)
      </label>
      <label class="checkbox">
        <input type="radio" name="app_type" value="public" checked={isPublic} />
        Single-page or mobile app (no secret: it must use PKCE, and may call the token endpoint from its redirect URLs' origins)
      </label>
    </fieldset>
  );
}

export function AppFields({ values, errors }: AppFieldsProps) {
  return (
    <>
      <Field id="app_name" name="name" label="App name" required value={values.name} error={errors.name} hint="Shown to people when they sign in and on their account page." />
      <Field
        id="redirect_uris"
        name="redirect_uris"
        label="Redirect URLs"
        multiline
        required
        spellcheck={false}
        value={values.redirectUris}
        error={errors.redirectUris}
        hint={REDIRECT_URL_RULES}
      />
      <Field id="homepage_url" name="homepage_url" label="Homepage URL (optional)" type="url" value={values.homepageUrl} error={errors.homepageUrl} />
      <Field id="logo_url" name="logo_url" label="Logo URL (optional)" type="url" value={values.logoUrl} error={errors.logoUrl} hint="An https:// address of a square image." />
      <Field id="policy_url" name="policy_url" label="Privacy policy URL (optional)" type="url" value={values.policyUrl} error={errors.policyUrl} hint="Linked on the consent page (policy_uri)." />
      <Field id="terms_url" name="terms_url" label="Terms of service URL (optional)" type="url" value={values.termsUrl} error={errors.termsUrl} hint="Linked on the consent page (tos_uri)." />
      <Field
        id="post_logout_redirect_uris"
        name="post_logout_redirect_uris"
        label="Sign-out return URLs (optional)"
        multiline
        spellcheck={false}
        value={values.postLogoutRedirectUris}
        error={errors.postLogoutRedirectUris}
        hint="One per line: where Latch may send people back after your app signs them out at Latch (post_logout_redirect_uri), compared exactly, port included."
      />
      <Field
        id="backchannel_logout_uri"
        name="backchannel_logout_uri"
        label="Back-channel logout URL (optional)"
        type="url"
        spellcheck={false}
        value={values.backchannelLogoutUri}
        error={errors.backchannelLogoutUri}
        hint="Your back end's address where Latch posts a logout token when someone signs out of Latch. https://, or http:// to localhost while developing."
      />
    </>
  );
}
