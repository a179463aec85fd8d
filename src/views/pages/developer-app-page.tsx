import type { IntegrationGuide } from '../../developer/integration-guide.js';
import { describeDuration } from '../../mail/messages.js';
import { CopyableBlock, CopyableValue, CsrfField, Field } from '../components/field.js';
import { formatTime } from '../format.js';
import { Layout } from '../layout.js';
import type { RegisterAppField } from './developer-page.js';

export interface FailedRequestView {
  createdAt: Date;
  endpoint: string;
  error: string;
  description: string;
  requestId: string;
  mismatch: {
    received: string;
    closest: string | null;
    differingPart: string | null;
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
    createdAt: Date;
    previousSecretExpiresAt: Date | null;
  };
  now: Date;
  graceSeconds: number;
  notice?: string | undefined;
  values: Partial<Record<RegisterAppField, string>>;
  errors: Partial<Record<RegisterAppField | 'confirmDelete', string>>;
  failedRequests: FailedRequestView[];
  guide: IntegrationGuide;
}

export function DeveloperAppPage(props: DeveloperAppPageProps) {
  const { app, csrfToken, guide } = props;
  const base = `/developer/apps/${app.clientId}`;
  const previousSecretActive = app.previousSecretExpiresAt !== null && app.previousSecretExpiresAt > props.now;
  return (
    <Layout title={app.name} signedIn wide withCopyScript>
      <p>
        <a href="/developer">← All your apps</a>
      </p>
      {props.notice ? (
        <p class="alert ok" role="status">
          {props.notice}
        </p>
      ) : null}

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
        <label for="client_id">Client id</label>
        <CopyableValue id="client_id" value={app.clientId} label="Client id" />
      </section>

      <section class="card" aria-labelledby="secret-heading">
        <h2 id="secret-heading">Client secret</h2>
        <p>Latch shows a secret only once, when it is created, and keeps only a fingerprint of it. If you lost it, or it may have leaked, rotate it.</p>
        {previousSecretActive ? (
          <p class="alert ok" role="status">
            The previous secret keeps working until {formatTime(app.previousSecretExpiresAt as Date)}, then stops.
          </p>
        ) : null}
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

      <section class="card" aria-labelledby="settings-heading">
        <h2 id="settings-heading">Settings</h2>
        <form method="post" action={`${base}/settings`} novalidate>
          <CsrfField token={csrfToken} />
          <Field id="app_name" name="name" label="App name" required value={props.values.name ?? app.name} error={props.errors.name} />
          <Field
            id="redirect_uris"
            name="redirect_uris"
            label="Redirect URLs"
            multiline
            required
            spellcheck={false}
            value={props.values.redirectUris ?? app.redirectUris.join('\n')}
            error={props.errors.redirectUris}
            hint="One per line, compared exactly (a loopback http://127.0.0.1 or http://[::1] URL matches any port). https://, or http:// to localhost while developing."
          />
          <Field id="homepage_url" name="homepage_url" label="Homepage URL (optional)" type="url" value={props.values.homepageUrl ?? app.homepageUrl ?? ''} error={props.errors.homepageUrl} />
          <Field id="logo_url" name="logo_url" label="Logo URL (optional)" type="url" value={props.values.logoUrl ?? app.logoUrl ?? ''} error={props.errors.logoUrl} />
          <div class="actions">
            <button type="submit">Save settings</button>
          </div>
        </form>
      </section>

      <section class="card" aria-labelledby="failures-heading">
        <h2 id="failures-heading">Recent failed requests</h2>
        {props.failedRequests.length === 0 ? (
          <p class="muted">No failed authorization or token requests recently.</p>
        ) : (
          props.failedRequests.map((event) => (
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
                {event.mismatch ? (
                  <>
                    <dt>redirect_uri sent</dt>
                    <dd>
                      <code>{event.mismatch.received}</code>
                    </dd>
                    <dt>Closest registered</dt>
                    <dd>{event.mismatch.closest ? <code>{event.mismatch.closest}</code> : 'none registered'}</dd>
                    {event.mismatch.differingPart ? (
                      <>
                        <dt>They differ in</dt>
                        <dd>the {event.mismatch.differingPart}</dd>
                      </>
                    ) : null}
                  </>
                ) : null}
              </dl>
              {event.mismatch?.canAdd ? (
                <form method="post" action={`${base}/redirect-uris/add`} class="inline-form">
                  <CsrfField token={csrfToken} />
                  <input type="hidden" name="redirect_uri" value={event.mismatch.received} />
                  <button type="submit" class="secondary">
                    Add this redirect URL
                  </button>
                </form>
              ) : event.mismatch?.addProblem ? (
                <p class="hint">Cannot be added: {event.mismatch.addProblem}</p>
              ) : null}
            </div>
          ))
        )}
      </section>

      <section class="card" aria-labelledby="guide-heading">
        <h2 id="guide-heading">Integration guide</h2>
        <p>
          Your back end sends the person's browser to the authorize URL, receives <code>code</code> and <code>state</code> at its redirect
          URL, checks <code>state</code>, then exchanges the code for an access token and the user. Use PKCE: make a random{' '}
          <code>code_verifier</code>, send its S256 <code>code_challenge</code> here, and the verifier in the token request.
        </p>
        <h3>1. Authorize URL</h3>
        <CopyableBlock id="guide_authorize" text={guide.authorizeUrl} label="Authorize URL" wrap />
        <h3>2. Token exchange, client id and secret in the Authorization header (client_secret_basic)</h3>
        <CopyableBlock id="guide_token_basic" text={guide.tokenCurlBasic} label="Token exchange with HTTP Basic authentication" />
        <h3>… or in the form body (client_secret_post)</h3>
        <CopyableBlock id="guide_token_post" text={guide.tokenCurlPost} label="Token exchange with the secret in the form body" />
        <h3>3. The user, with the access token</h3>
        <CopyableBlock id="guide_userinfo" text={guide.userinfoCurl} label="Userinfo request" />
        <h3>Environment variables for your back end</h3>
        <CopyableBlock id="guide_env" text={guide.environment} label="Environment variables" />
        <p class="hint">
          OpenID Connect libraries can discover everything from <code>{props.issuer}/.well-known/openid-configuration</code> (add the{' '}
          <code>openid</code> scope).
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
              {props.errors.confirmDelete}
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
