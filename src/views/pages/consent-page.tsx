import type { JSX } from 'preact';
import { CsrfField } from '../components/field.js';
import { Layout } from '../layout.js';
import { asPage, useBrandName, useI18n } from '../page-context.js';
import type { Translator } from '../../i18n/translator.js';

export interface ConsentPageProps {
  csrfToken: string;
  clientName: string;
  clientHomepage: string | null;
  redirectHost: string;
  userEmail: string;
  /** The original authorization request's query string, posted back with the decision. */
  authorizationRequest: string;
  scope: string[];
  /** The app registered itself (RFC 7591): nobody at this Latch checked who runs it, so the page says so. */
  registeredDynamically?: boolean;
  /**
   * The app is described by a client metadata document (client_id is its URL): the host that serves it, the one
   * thing about the app that is verified, shown as the draft asks; the app is marked as unverified too.
   */
  metadataDocumentHost?: string;
  /** The app's privacy policy and terms of service (client metadata policy_uri, tos_uri), linked when known. */
  policyUrl?: string | null;
  termsUrl?: string | null;
  /**
   * The device authorization grant (RFC 8628 §3.3): the decision posts to /device/decision with the user code,
   * nobody is sent anywhere afterwards, and the page names the code to compare with the device (§5.4).
   */
  device?: { userCode: string };
  /**
   * The APIs the access token will be for (RFC 8707 `resource`; README "APIs (resource servers)"): each named, with
   * its address and the scopes of it asked for, as the operator registered them.
   */
  resources?: Array<{ name: string; identifier: string; scope: string[] }>;
}

/** What the app asks for, in a heading's words: the widest thing the scope hands over (user-object.ts). */
function askedFor(scope: readonly string[]) {
  if (scope.includes('profile')) return 'consent.heading.profile';
  if (scope.includes('email')) return 'consent.heading.email';
  return 'consent.heading.identity';
}

/** What the app will receive, item by item, for the granted scope (docs/protocol-decisions.md "Scope"). */
function receivedItems(props: ConsentPageProps, { t, rich }: Translator, brand: string) {
  const items: JSX.Element[] = [];
  if (props.scope.includes('profile')) {
    items.push(<li>{t('consent.item.email')}</li>, <li>{t('consent.item.name')}</li>, <li>{t('consent.item.avatar')}</li>);
  } else if (props.scope.includes('email')) {
    items.push(<li>{t('consent.item.email')}</li>);
  } else {
    items.push(<li>{t('consent.item.identity', { brand })}</li>);
  }
  for (const resource of props.resources ?? []) {
    const parts = {
      resource: <strong>{t('consent.item.resourceName', { name: resource.name })}</strong>,
      identifier: <span class="mono">{resource.identifier}</span>,
      permissions: <span class="mono">{resource.scope.join(', ')}</span>,
    };
    items.push(<li>{resource.scope.length > 0 ? rich('consent.item.resourceScoped', parts) : rich('consent.item.resource', parts)}</li>);
  }
  if (props.scope.includes('offline_access')) {
    items.push(
      <li>
        <strong>{t('consent.item.offlineTitle')}</strong> {t('consent.item.offline', { app: props.clientName })}
      </li>,
    );
  }
  return items;
}

/** "Orbit Notes's privacy policy and terms of service.", with the links the app registered. */
function PolicyLinks({ clientName, policyUrl, termsUrl }: { clientName: string; policyUrl: string | null | undefined; termsUrl: string | null | undefined }) {
  const { t, rich } = useI18n();
  const policy = policyUrl ? (
    <a href={policyUrl} rel="noopener noreferrer">
      {t('consent.policy')}
    </a>
  ) : null;
  const terms = termsUrl ? (
    <a href={termsUrl} rel="noopener noreferrer">
      {t('consent.terms')}
    </a>
  ) : null;
  const key = policy && terms ? 'consent.policyAndTerms' : policy ? 'consent.policyOnly' : 'consent.termsOnly';
  return <p class="hint">{rich(key, { app: clientName, policy, terms })}</p>;
}

/**
 * The client's name, what it will receive, and two buttons, "Allow" and "Deny" (docs/protocol-decisions.md
 * "Pages"): the heading says what is asked, where the person will be sent back is said plainly, and "Not you?"
 * signs out and comes back to the same request.
 */
export const ConsentPage = asPage(function ConsentPage(props: ConsentPageProps) {
  const i18n = useI18n();
  const { t, rich } = i18n;
  const brand = useBrandName();
  const returnTo = props.device ? `/device?user_code=${encodeURIComponent(props.device.userCode)}` : `/oauth2/authorize?${props.authorizationRequest}`;
  const host = <strong>{props.redirectHost}</strong>;
  return (
    <Layout title={t('consent.title', { app: props.clientName })} signedIn inFlow>
      <div class="card">
        <h1>{rich(askedFor(props.scope), { app: <span class="client-name">{props.clientName}</span> })}</h1>
        {props.registeredDynamically || props.metadataDocumentHost ? (
          <p class="secret-warning" role="note">
            <strong>{t('consent.unverified')}</strong>{' '}
            {props.metadataDocumentHost
              ? rich('consent.unverified.document', { app: props.clientName, host: <strong>{props.metadataDocumentHost}</strong> })
              : t('consent.unverified.registered', { app: props.clientName })}{' '}
            {props.device ? t('consent.unverified.device') : rich('consent.unverified.redirect', { host })}
          </p>
        ) : null}
        <p>{rich('consent.signedInAs', { email: <strong>{props.userEmail}</strong>, app: props.clientName })}</p>
        <ul class="scopes">{receivedItems(props, i18n, brand)}</ul>
        {props.policyUrl || props.termsUrl ? <PolicyLinks clientName={props.clientName} policyUrl={props.policyUrl} termsUrl={props.termsUrl} /> : null}
        {props.device ? (
          // RFC 8628 §5.4: someone may have sent this code to the person to get their account on a device of theirs.
          <p class="send-back">{rich('consent.device', { code: <strong class="mono">{props.device.userCode}</strong> })}</p>
        ) : (
          <p class="send-back">
            {props.clientHomepage
              ? rich('consent.sendBackHomepage', {
                  host,
                  homepage: (
                    <a href={props.clientHomepage} rel="noopener noreferrer">
                      {props.clientHomepage}
                    </a>
                  ),
                })
              : rich('consent.sendBack', { host })}
          </p>
        )}
        <form method="post" action={props.device ? '/device/decision' : '/oauth2/authorize/decision'}>
          <CsrfField token={props.csrfToken} />
          {props.device ? (
            <input type="hidden" name="user_code" value={props.device.userCode} />
          ) : (
            <input type="hidden" name="authorization_request" value={props.authorizationRequest} />
          )}
          <div class="actions">
            <button type="submit" name="decision" value="allow">
              {t('consent.allow')}
            </button>
            <button type="submit" name="decision" value="deny" class="secondary">
              {t('consent.deny')}
            </button>
          </div>
        </form>
        <form method="post" action="/logout" class="inline-form">
          <CsrfField token={props.csrfToken} />
          <input type="hidden" name="return_to" value={returnTo} />
          <p class="hint">
            {t('consent.notYou')}{' '}
            <button type="submit" class="link">
              {t('consent.useAnother')}
            </button>
            {' · '}
            {t('consent.removeLater')}
          </p>
        </form>
      </div>
    </Layout>
  );
});
