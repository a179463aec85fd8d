import { AppFields } from '../components/app-fields.js';
import { CopyableBlock, CopyableValue, CsrfField } from '../components/field.js';
import { Notice } from '../components/notice.js';
import { PostButton } from '../components/post-button.js';
import { describeDuration, formatTime } from '../format.js';
import { Layout } from '../layout.js';
import { RedirectUrlDifference, RedirectUrlRules, type RedirectUrlDifferenceView } from '../components/redirect-url-rules.js';
import type { RegisterAppField } from './developer-page.js';

/** One copy-paste integration (developer/snippets/): the view model of a guide section. */
export interface SnippetFile {
  /** Stable HTML id of the code block (tests find the block by it): `snippet-<snippet id>` for the main file. */
  id: string;
  /** The file name to save it as, e.g. `app.mjs`. */
  name: string;
  code: string;
}

export interface IntegrationSnippet {
  /** Stable id: `node-openid-client`, `python-authlib`, … */
  id: string;
  /** Library and language, e.g. "Node.js: openid-client 6". */
  title: string;
  /** The install command. */
  install: string;
  /** KEY=value lines (dotenv format), with the secret as a placeholder. Its block's id is `snippet-<id>-env`. */
  environment: string;
  files: SnippetFile[];
  /** Short notes shown under the title: where the callback is, how to run it. */
  notes: string[];
}


/** What an app's page confirms after a redirect, chosen by its key (`?notice=saved`): no text comes from the URL. */
export const APP_NOTICES = {
  saved: 'Settings saved.',
  'redirect-added': 'Redirect URL added. Try the sign-in again.',
  'playground-callback-removed': 'The playground’s test callback was removed from the redirect URLs.',
  'secret-shown': 'The new secret was shown once and cannot be shown again: Latch keeps only a fingerprint of it. If you did not save it, rotate it.',
} as const;
export type AppNotice = keyof typeof APP_NOTICES;

/** The ready-to-paste integration guide, which the route fills with the app's real values. */
export interface IntegrationGuide {
  authorizeUrl: string;
  tokenCurlBasic: string;
  tokenCurlPost: string;
  userinfoCurl: string;
  environment: string;
  /** For a public client (single-page or mobile app): the token exchange as the app makes it, with client_id alone. */
  tokenFetchPublic?: string;
  /** Copy-paste integrations for client libraries, each with its environment block (src/developer/snippets/). */
  snippets: IntegrationSnippet[];
  /** Why some libraries are missing (a public client gets only those that work without a secret). */
  snippetsNote?: string;
}

/**
 * A block of code to copy: <pre><code> with the copy button of CopyableBlock (it copies the text of the element
 * with the id). The id is stable: tests take the code from the rendered page by it.
 */
function CodeBlock({ id, code, label }: { id: string; code: string; label: string }) {
  return (
    <div class="copyable-block">
      {/* Focusable: long lines scroll sideways, and keyboard users must be able to scroll them (WCAG 2.1.1). */}
      <pre aria-label={label} tabIndex={0}>
        <code id={id}>{code}</code>
      </pre>
      <button type="button" class="secondary copy" data-copy={id} hidden>
        Copy
      </button>
    </div>
  );
}

/** One library's integration: a <details> (works without JavaScript) with the install line, the environment and the code. */
function SnippetSection({ snippet, open }: { snippet: IntegrationSnippet; open: boolean }) {
  return (
    <details class="snippet" id={`guide-${snippet.id}`} open={open}>
      <summary>
        <strong>{snippet.title}</strong>
      </summary>
      {snippet.notes.map((note) => (
        <p>{note}</p>
      ))}
      <p>
        Install: <code>{snippet.install}</code>
      </p>
      <h3>Environment (.env)</h3>
      <CodeBlock id={`snippet-${snippet.id}-env`} code={snippet.environment} label={`Environment for ${snippet.title}`} />
      {snippet.files.map((file) => (
        <>
          <h3>
            <code>{file.name}</code>
          </h3>
          <CodeBlock id={file.id} code={file.code} label={`${file.name} for ${snippet.title}`} />
        </>
      ))}
    </details>
  );
}

export interface FailedRequestView {
  createdAt: Date;
  endpoint: string;
  error: string;
  description: string;
  requestId: string;
  mismatch: {
    received: string;
    closest: string | null;
    /** How it differs from the closest URL registered now; null when it matches one now. */
    difference: RedirectUrlDifferenceView | null;
    /** Registered since the request failed. */
    alreadyRegistered: boolean;
    /** True when the received URL passes the registration checks and is not registered yet. */
    canAdd: boolean;
    /** Why it cannot be added, when it cannot. */
    addProblem: string | null;
  } | null;
}

export interface DeveloperAppPageProps {
  csrfToken: string;
  issuer: string;
  app: {
    clientId: string;
    name: string;
    redirectUris: string[];
    homepageUrl: string | null;
    logoUrl: string | null;
    policyUrl?: string | null;
    termsUrl?: string | null;
    postLogoutRedirectUris: string[];
    backchannelLogoutUri: string | null;
    createdAt: Date;
    previousSecretExpiresAt: Date | null;
    /** none: a single-page or mobile app, with no secret. */
    tokenEndpointAuthMethod: 'client_secret_basic' | 'none';
    /** Every user needs a second factor (session/authentication-methods.ts). */
    requireMfa: boolean;
  };
  now: Date;
  graceSeconds: number;
  notice?: AppNotice | undefined;
  values: Partial<Record<RegisterAppField, string>>;
  /** Field errors; `confirmDelete` is set when the delete form came without its box ticked. */
  errors: Partial<Record<RegisterAppField, string>> & { confirmDelete?: true };
  /** Failures of the app, newest first. */
  failedRequests: FailedRequestView[];
  /** When people chose "Deny" on the consent page (access_denied): their answer, not a failure of the app. */
  declined: Date[];
  /** Requests that succeeded, with something to know (scope values ignored). */
  notes: FailedRequestView[];
  guide: IntegrationGuide;
  /** Grants of this app that are live now: people it can act for with a live access or refresh token. */
  liveGrants: number;
  /** Latch's test callback for the playground, and whether the developer added it to the redirect URLs. */
  playgroundCallback: { uri: string; registered: boolean };
}

function FailedRequestItem({ event, base, csrfToken }: { event: FailedRequestView; base: string; csrfToken: string }) {
  const mismatch = event.mismatch;
  return (
    <div class="event">
      <strong>
        <code>{event.error}</code>
      </strong>{' '}
      at <code>{event.endpoint}</code> · {formatTime(event.createdAt)}
      <p>{event.description}</p>
      <dl>
        <dt>Request id</dt>
        <dd>
          <code>{event.requestId}</code>
        </dd>
        {mismatch ? (
          <>
            <dt>redirect_uri sent</dt>
            <dd>
              <code>{mismatch.received}</code>
            </dd>
            <dt>Closest registered</dt>
            <dd>{mismatch.closest ? <code>{mismatch.closest}</code> : 'none registered'}</dd>
            {mismatch.alreadyRegistered ? (
              <>
                <dt>Now</dt>
                <dd>registered: the same request would pass today</dd>
              </>
            ) : mismatch.difference ? (
              <>
                <dt>They differ in</dt>
                <dd>
                  <RedirectUrlDifference difference={mismatch.difference} />
                </dd>
              </>
            ) : null}
          </>
        ) : null}
      </dl>
      {mismatch?.canAdd ? (
        <PostButton action={`${base}/redirect-uris/add`} csrfToken={csrfToken} label="Add this redirect URL" fields={{ redirect_uri: mismatch.received }} inline />
      ) : mismatch?.addProblem ? (
        <p class="hint">Cannot be added: {mismatch.addProblem}</p>
      ) : null}
    </div>
  );
}

function FailedRequests(props: DeveloperAppPageProps & { base: string }) {
  const hasMismatch = props.failedRequests.some((event) => event.mismatch !== null);
  return (
    <section class="card" aria-labelledby="failures-heading">
      <h2 id="failures-heading">Recent failed requests</h2>
      {props.failedRequests.length === 0 ? (
        <p class="muted">No failed authorization or token requests recently.</p>
      ) : (
        <>
          {hasMismatch ? <RedirectUrlRules id="failures-rules" /> : null}
          {props.failedRequests.map((event) => (
            <FailedRequestItem event={event} base={props.base} csrfToken={props.csrfToken} />
          ))}
        </>
      )}
    </section>
  );
}

/** People's "Deny" on the consent page: counted apart, since the app did nothing wrong. */
function Declined({ declined }: { declined: Date[] }) {
  if (declined.length === 0) return null;
  return (
    <section class="card" aria-labelledby="declined-heading">
      <h2 id="declined-heading">Declined by people</h2>
      <p>
        {declined.length === 1 ? 'One person' : `${declined.length} people`} chose “Deny” on the consent page recently (latest {formatTime(declined[0] as Date)}).
        Your app received <code>error=access_denied</code>: not a failure of the app, but show people a way to try again.
      </p>
    </section>
  );
}

/** Requests that succeeded with something worth knowing (scope values Latch ignored, OIDC Core §3.1.2.1). */
function Notes({ notes }: { notes: FailedRequestView[] }) {
  return (
    <section class="card" aria-labelledby="notes-heading">
      <h2 id="notes-heading">Notes on successful requests</h2>
      {notes.map((note) => (
        <div class="event">
          <code>{note.error}</code> at <code>{note.endpoint}</code> · {formatTime(note.createdAt)}
          <p>{note.description}</p>
        </div>
      ))}
    </section>
  );
}

export function DeveloperAppPage(props: DeveloperAppPageProps) {
  const { app, csrfToken, guide } = props;
  const base = `/developer/apps/${app.clientId}`;
  const previousSecretActive = app.previousSecretExpiresAt !== null && app.previousSecretExpiresAt > props.now;
  return (
    <Layout title={app.name} signedIn wide withCopyScript current="developer">
      <p>
        <a href="/developer">← All your apps</a>
      </p>
      <Notice>{props.notice && APP_NOTICES[props.notice]}</Notice>

      <section class="card" aria-labelledby="app-heading">
        <h1 id="app-heading">
          {app.logoUrl ? <img class="logo" src={app.logoUrl} alt="" width={40} height={40} /> : null}
          {app.name}
        </h1>
        <p class="muted">
          Registered {formatTime(app.createdAt)}
          {app.homepageUrl ? (
            <>
              {' · '}
              <a href={app.homepageUrl} rel="noopener noreferrer">
                {app.homepageUrl}
              </a>
            </>
          ) : null}
        </p>
        <p>
          {props.liveGrants === 0
            ? 'No live grants: no one has a working access or refresh token for this app right now.'
            : `${props.liveGrants} live ${props.liveGrants === 1 ? 'grant' : 'grants'}: sign-ins with a working access or refresh token for this app.`}
        </p>
        <label for="client_id">Client id</label>
        <CopyableValue id="client_id" value={app.clientId} label="Client id" />
      </section>

      {/* Failures first when there are any: they are what a developer comes to this page for. */}
      {props.failedRequests.length > 0 ? <FailedRequests {...props} base={base} /> : null}

      <section class="card" aria-labelledby="playground-heading">
        <h2 id="playground-heading">Try sign-in</h2>
        <p>
          Run this app’s real sign-in in the playground and see what your app will receive: the authorization request, the code and state that
          come back, the token response with the user, userinfo, and the id_token with each check ticked.
        </p>
        <p>
          <a class="button" href={`${base}/playground`}>
            Try sign-in
          </a>
        </p>
      </section>

      {app.tokenEndpointAuthMethod === 'none' ? (
        <section class="card" aria-labelledby="secret-heading">
          <h2 id="secret-heading">Client secret</h2>
          <p>This is a single-page or mobile app: it has no secret. It sends its client id alone and must use PKCE (S256).</p>
        </section>
      ) : (
        <section class="card" aria-labelledby="secret-heading">
          <h2 id="secret-heading">Client secret</h2>
          <p>Latch shows a secret only once, when it is created, and keeps only a fingerprint of it. If you lost it, or it may have leaked, rotate it.</p>
          {previousSecretActive ? <Notice>The previous secret keeps working until {formatTime(app.previousSecretExpiresAt as Date)}, then stops.</Notice> : null}
          <form method="post" action={`${base}/secret`}>
            <CsrfField token={csrfToken} />
            <fieldset>
              <legend>What happens to the current secret</legend>
              {props.graceSeconds > 0 ? (
                <label class="checkbox">
                  <input type="radio" name="grace" value="default" checked />
                  Keep it working for {describeDuration(props.graceSeconds)}, so you can deploy the new one without downtime (recommended)
                </label>
              ) : null}
              <label class="checkbox">
                <input type="radio" name="grace" value="none" checked={props.graceSeconds === 0} />
                Stop it immediately (if it leaked)
              </label>
            </fieldset>
            <p class="hint">Only the secret in use at rotation time gets the grace period: rotating again ends any earlier one at once.</p>
            <div class="actions">
              <button type="submit">Rotate secret</button>
            </div>
          </form>
        </section>
      )}

      <section class="card" aria-labelledby="settings-heading">
        <h2 id="settings-heading">Settings</h2>
        <form method="post" action={`${base}/settings`} novalidate>
          <CsrfField token={csrfToken} />
          <AppFields
            values={{
              name: props.values.name ?? app.name,
              redirectUris: props.values.redirectUris ?? app.redirectUris.join('\n'),
              homepageUrl: props.values.homepageUrl ?? app.homepageUrl ?? '',
              logoUrl: props.values.logoUrl ?? app.logoUrl ?? '',
              policyUrl: props.values.policyUrl ?? app.policyUrl ?? '',
              termsUrl: props.values.termsUrl ?? app.termsUrl ?? '',
              postLogoutRedirectUris: props.values.postLogoutRedirectUris ?? app.postLogoutRedirectUris.join('\n'),
              backchannelLogoutUri: props.values.backchannelLogoutUri ?? app.backchannelLogoutUri ?? '',
            }}
            errors={props.errors}
          />
          {props.playgroundCallback.registered ? (
            <p class="hint" id="playground-callback-note">
              <code>{props.playgroundCallback.uri}</code> is Latch’s test callback, added for the playground (“Try sign-in”), not an address of
              your app. Remove it from the list above, or in the <a href={`${base}/playground`}>playground</a>.
            </p>
          ) : null}
          <label class="checkbox" for="require_mfa">
            <input type="checkbox" id="require_mfa" name="require_mfa" value="yes" checked={app.requireMfa} aria-describedby="require_mfa-hint" />
            Require two-step verification for every user
          </label>
          <p class="hint" id="require_mfa-hint">
            People who have no authenticator app or passkey yet are sent back to the app with unmet_authentication_requirements
            and asked to add one; id_tokens carry acr https://refeds.org/profile/mfa or stronger.
          </p>
          <div class="actions">
            <button type="submit">Save settings</button>
          </div>
        </form>
      </section>

      {props.failedRequests.length === 0 ? <FailedRequests {...props} base={base} /> : null}
      <Declined declined={props.declined} />
      {props.notes.length > 0 ? <Notes notes={props.notes} /> : null}

      <section class="card" aria-labelledby="guide-heading">
        <h2 id="guide-heading">Integration guide</h2>
        <p>
          Code for your library, filled in with this app's issuer, client id and redirect URL. Each reads its settings from the environment
          block beside it{app.tokenEndpointAuthMethod === 'none' ? '' : ', the client secret included, so that the secret stays out of your code'}; each
          asks for <code>openid email profile</code> and uses PKCE (S256), state and nonce.
        </p>
        {guide.snippetsNote ? <p class="hint">{guide.snippetsNote}</p> : null}
        {guide.snippets.map((snippet, index) => (
          <SnippetSection snippet={snippet} open={index === 0} />
        ))}
        <details class="snippet" id="guide-curl">
          <summary>
            <strong>curl: the raw HTTP flow</strong>
          </summary>
          <p>
            Your back end sends the person's browser to the authorize URL, receives <code>code</code> and <code>state</code> at its redirect
            URL, checks <code>state</code>, then exchanges the code for an access token and the user. Use PKCE: make a random{' '}
            <code>code_verifier</code>, send its S256 <code>code_challenge</code> here, and the verifier in the token request.
          </p>
          <h3>1. Authorize URL</h3>
          <CopyableBlock id="guide_authorize" text={guide.authorizeUrl} label="Authorize URL" wrap />
          {guide.tokenFetchPublic !== undefined ? (
            <>
              <h3>2. Token exchange from the app: client id alone, no secret (a public client)</h3>
              <CopyableBlock id="guide_token_public" text={guide.tokenFetchPublic} label="Token exchange from a single-page app" />
              <p class="hint">Latch answers it across origins for the origins of this app's redirect URLs (CORS).</p>
            </>
          ) : (
            <>
              <h3>2. Token exchange, client id and secret in the Authorization header (client_secret_basic)</h3>
              <CopyableBlock id="guide_token_basic" text={guide.tokenCurlBasic} label="Token exchange with HTTP Basic authentication" />
              <h3>… or in the form body (client_secret_post)</h3>
              <CopyableBlock id="guide_token_post" text={guide.tokenCurlPost} label="Token exchange with the secret in the form body" />
            </>
          )}
          <h3>3. The user, with the access token</h3>
          <CopyableBlock id="guide_userinfo" text={guide.userinfoCurl} label="Userinfo request" />
          <h3>Environment variables for your back end</h3>
          <CopyableBlock id="guide_env" text={guide.environment} label="Environment variables" />
        </details>
        <p class="hint">
          Any other OpenID Connect library discovers everything from <code>{props.issuer}/.well-known/openid-configuration</code>.
        </p>
      </section>

      <section class="card danger-zone" aria-labelledby="delete-heading">
        <h2 id="delete-heading">Delete this app</h2>
        <form method="post" action={`${base}/delete`}>
          <CsrfField token={csrfToken} />
          <label class="checkbox" for="confirm_delete">
            <input type="checkbox" id="confirm_delete" name="confirm" value="yes" required aria-describedby={props.errors.confirmDelete ? 'confirm_delete-error' : undefined} />
            I understand: people can no longer sign in to {app.name} with Latch, and every access token it holds stops working at once.
          </label>
          {props.errors.confirmDelete ? (
            <p class="field-error" id="confirm_delete-error">
              Tick the box to confirm that you want to delete this app
            </p>
          ) : null}
          <div class="actions">
            <button type="submit" class="danger">
              Delete app
            </button>
          </div>
        </form>
      </section>
    </Layout>
  );
}
