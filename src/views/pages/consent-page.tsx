import type { JSX } from 'preact';
import { CsrfField } from '../components/field.js';
import { Layout } from '../layout.js';
import { BrandName } from '../page-context.js';

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
function askedFor(scope: readonly string[]): string {
  if (scope.includes('profile')) return 'wants access to your profile';
  if (scope.includes('email')) return 'wants to know your email address';
  return 'wants to know who you are';
}

/** What the app will receive, item by item, for the granted scope (docs/protocol-decisions.md "Scope"). */
function receivedItems(props: ConsentPageProps) {
  const items: JSX.Element[] = [];
  if (props.scope.includes('profile')) {
    items.push(<li>Your email address, and whether it is verified</li>, <li>Your name</li>, <li>Your avatar (profile picture), if you have one</li>);
  } else if (props.scope.includes('email')) {
    items.push(<li>Your email address, and whether it is verified</li>);
  } else {
    items.push(<li>An id for your <BrandName /> account, so that it can recognise you next time (not your email or name)</li>);
  }
  for (const resource of props.resources ?? []) {
    items.push(
      <li>
        <strong>Access to {resource.name}</strong> (<span class="mono">{resource.identifier}</span>)
        {resource.scope.length > 0 ? (
          <>
            {' '}
            with the permissions <span class="mono">{resource.scope.join(', ')}</span>
          </>
        ) : null}
        , on your behalf
      </li>,
    );
  }
  if (props.scope.includes('offline_access')) {
    items.push(
      <li>
        <strong>Access while you are away:</strong> {props.clientName} can keep access while you are away, until you remove it
      </li>,
    );
  }
  return items;
}

/**
 * The client's name, what it will receive, and two buttons, "Allow" and "Deny" (docs/protocol-decisions.md
 * "Pages"): the heading says what is asked, where the person will be sent back is said plainly, and "Not you?"
 * signs out and comes back to the same request.
 */
export function ConsentPage(props: ConsentPageProps) {
  const returnTo = props.device ? `/device?user_code=${encodeURIComponent(props.device.userCode)}` : `/oauth2/authorize?${props.authorizationRequest}`;
  return (
    <Layout title={`Allow ${props.clientName}?`} signedIn inFlow>
      <div class="card">
        <h1>
          <span class="client-name">{props.clientName}</span> {askedFor(props.scope)}
        </h1>
        {props.registeredDynamically || props.metadataDocumentHost ? (
          <p class="secret-warning" role="note">
            <strong>Unverified app.</strong>{' '}
            {props.metadataDocumentHost ? (
              <>
                {props.clientName} is described by <strong>{props.metadataDocumentHost}</strong>; nobody here has checked who runs it.
              </>
            ) : (
              <>{props.clientName} registered itself with this server; nobody here has checked who runs it.</>
            )}{' '}
            {props.device ? (
              <>Allow only if you trust it.</>
            ) : (
              <>
                Allow only if you trust <strong>{props.redirectHost}</strong>, where you will be sent back.
              </>
            )}
          </p>
        ) : null}
        <p>
          Signed in as <strong>{props.userEmail}</strong>. If you allow, {props.clientName} will receive:
        </p>
        <ul class="scopes">{receivedItems(props)}</ul>
        {props.policyUrl || props.termsUrl ? (
          <p class="hint">
            {props.clientName}
            {"'s "}
            {props.policyUrl ? (
              <a href={props.policyUrl} rel="noopener noreferrer">
                privacy policy
              </a>
            ) : null}
            {props.policyUrl && props.termsUrl ? ' and ' : null}
            {props.termsUrl ? (
              <a href={props.termsUrl} rel="noopener noreferrer">
                terms of service
              </a>
            ) : null}
            .
          </p>
        ) : null}
        {props.device ? (
          // RFC 8628 §5.4: someone may have sent this code to the person to get their account on a device of theirs.
          <p class="send-back">
            Allow only if you started this on a device you are using yourself and it shows the code <strong class="mono">{props.device.userCode}</strong>.
            Afterwards, go back to your device: it continues on its own.
          </p>
        ) : (
          <p class="send-back">
            Afterwards you go back to <strong>{props.redirectHost}</strong>
            {props.clientHomepage ? (
              <>
                {' '}
                (<a href={props.clientHomepage} rel="noopener noreferrer">{props.clientHomepage}</a>)
              </>
            ) : null}
            .
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
              Allow
            </button>
            <button type="submit" name="decision" value="deny" class="secondary">
              Deny
            </button>
          </div>
        </form>
        <form method="post" action="/logout" class="inline-form">
          <CsrfField token={props.csrfToken} />
          <input type="hidden" name="return_to" value={returnTo} />
          <p class="hint">
            Not you?{' '}
            <button type="submit" class="link">
              Use another account
            </button>
            {' · '}You can remove this access at any time from your account page.
          </p>
        </form>
      </div>
    </Layout>
  );
}
