import { CsrfField } from '../components/field.js';
import { Layout } from '../layout.js';

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
}

/**
 * The client's name, what it will receive, and two buttons, "Allow" and "Deny" (docs/protocol-decisions.md
 * "Pages").
 */
export function ConsentPage(props: ConsentPageProps) {
  return (
    <Layout title={`Allow ${props.clientName}?`} signedIn>
      <div class="card">
        <h1>
          <span class="client-name">{props.clientName}</span> wants to sign you in
        </h1>
        {props.registeredDynamically ? (
          <p class="secret-warning" role="note">
            <strong>Unverified app.</strong> {props.clientName} registered itself with this server; nobody here has checked who runs it. Allow
            only if you trust <strong>{props.redirectHost}</strong>, where you will be sent back.
          </p>
        ) : null}
        <p>
          Signed in as <strong>{props.userEmail}</strong>. If you allow, {props.clientName} will receive:
        </p>
        <ul class="scopes">
          <li>Your email address, and whether it is verified</li>
          <li>Your name</li>
          <li>Your avatar (profile picture), if you have one</li>
          {props.scope.includes('offline_access') ? (
            <li>
              <strong>Access while you are away:</strong> {props.clientName} can keep access while you are away, until you remove it
            </li>
          ) : null}
        </ul>
        <p class="hint">
          You will be sent back to <strong>{props.redirectHost}</strong>
          {props.clientHomepage ? (
            <>
              {' '}
              (<a href={props.clientHomepage} rel="noopener noreferrer">{props.clientHomepage}</a>)
            </>
          ) : null}
          . You can remove this access at any time from your account page.
        </p>
        <form method="post" action="/oauth2/authorize/decision">
          <CsrfField token={props.csrfToken} />
          <input type="hidden" name="authorization_request" value={props.authorizationRequest} />
          <div class="actions">
            <button type="submit" name="decision" value="allow">
              Allow
            </button>
            <button type="submit" name="decision" value="deny" class="secondary">
              Deny
            </button>
          </div>
        </form>
      </div>
    </Layout>
  );
}
