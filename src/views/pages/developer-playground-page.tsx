/**
 * The playground page (developer/playground-routes.ts): an app's real sign-in, one step after the other, with
 * everything the app would send and receive. Forms and links only: it works without JavaScript.
 */
import { CopyableBlock, CsrfField } from '../components/field.js';
import { Notice } from '../components/notice.js';
import { PostButton } from '../components/post-button.js';
import { Layout } from '../layout.js';

/** An HTTP answer as the app would read it: status and JSON body (or text, when it was not JSON). */
export interface PlaygroundHttpResult {
  status: number;
  body: unknown;
}

export interface PlaygroundCheck {
  name: string;
  passed: boolean;
  detail: string;
}

export interface PlaygroundRun {
  authorizeUrl: string;
  sent: { state: string; nonce: string; codeChallenge: string };
  /** What came back to the callback; null while the sign-in has not returned. */
  returned: {
    code?: string;
    state?: string;
    iss?: string;
    error?: string;
    errorDescription?: string;
    stateMatches: boolean;
    /** RFC 9207: null when no iss came back. */
    issMatches: boolean | null;
  } | null;
  token: PlaygroundHttpResult | null;
  userinfo: PlaygroundHttpResult | null;
  idToken: { header: Record<string, unknown> | null; claims: Record<string, unknown> | null; checks: PlaygroundCheck[] } | null;
}

export const PLAYGROUND_NOTICES = {
  'callback-added': 'The test callback was added to this app’s redirect URLs. Start a sign-in below.',
  'no-run': 'No sign-in was waiting at the test callback (it expired after 15 minutes, or was started in another browser). Start a new one.',
} as const;

export interface DeveloperPlaygroundPageProps {
  csrfToken: string;
  issuer: string;
  app: { clientId: string; name: string; isPublic: boolean };
  callback: { uri: string; registered: boolean; cannotAdd: string | null };
  scope: string;
  notice?: keyof typeof PLAYGROUND_NOTICES | undefined;
  run: PlaygroundRun | null;
}

function Check({ check }: { check: PlaygroundCheck }) {
  return (
    <li>
      <span class={check.passed ? 'check-passed' : 'check-failed'}>{check.passed ? '✓ Passed' : '✗ Failed'}</span> <strong>{check.name}</strong>: {check.detail}
    </li>
  );
}

function Json({ id, value, label }: { id: string; value: unknown; label: string }) {
  return <CopyableBlock id={id} text={typeof value === 'string' ? value : JSON.stringify(value, null, 2)} label={label} />;
}

function Status({ result, what }: { result: PlaygroundHttpResult; what: string }) {
  const ok = result.status >= 200 && result.status < 300;
  return (
    <p>
      <span class={ok ? 'check-passed' : 'check-failed'}>{ok ? '✓ Passed' : '✗ Failed'}</span> {what} answered HTTP <code>{result.status}</code>
      {!ok && result.body && typeof result.body === 'object' && 'error' in result.body ? (
        <>
          {' '}
          with <code>{String((result.body as Record<string, unknown>).error)}</code>
        </>
      ) : null}
      .
    </p>
  );
}

function Steps({ props, run }: { props: DeveloperPlaygroundPageProps; run: PlaygroundRun }) {
  const base = `/developer/apps/${props.app.clientId}/playground`;
  const returned = run.returned;
  const user = run.token && run.token.body && typeof run.token.body === 'object' ? (run.token.body as Record<string, unknown>).user : undefined;
  return (
    <ol class="steps">
      <li>
        <h2 id="step-authorize">The authorization request</h2>
        <p>Your app sends the person’s browser to this address, with a fresh state, nonce and PKCE challenge each time:</p>
        <CopyableBlock id="playground_authorize_url" text={run.authorizeUrl} label="Authorization request URL" wrap />
        <dl class="event">
          <dt>state</dt>
          <dd>
            <code>{run.sent.state}</code>
          </dd>
          <dt>nonce</dt>
          <dd>
            <code>{run.sent.nonce}</code>
          </dd>
          <dt>code_challenge (S256)</dt>
          <dd>
            <code>{run.sent.codeChallenge}</code>
          </dd>
        </dl>
        <p class="hint">The state, nonce and PKCE verifier are kept in a sealed cookie of this browser, as your back end would keep them in its session.</p>
        {returned === null ? (
          <p>
            <a class="button" id="playground_continue" href={run.authorizeUrl}>
              Continue to sign-in
            </a>
          </p>
        ) : null}
      </li>
      {returned !== null ? (
        <li>
          <h2 id="step-callback">Back at the redirect URL</h2>
          {returned.error !== undefined ? (
            <p>
              <span class="check-failed">✗ Failed</span> Latch sent back <code>error={returned.error}</code>
              {returned.errorDescription ? (
                <>
                  : {returned.errorDescription}
                </>
              ) : null}
              {returned.error === 'access_denied' ? ' (the person chose Deny).' : '.'}
            </p>
          ) : (
            <dl class="event">
              <dt>code</dt>
              <dd>
                <code id="playground_code">{returned.code ?? '(none)'}</code>
              </dd>
            </dl>
          )}
          <ul class="checks">
            <Check
              check={{
                name: 'state',
                passed: returned.stateMatches,
                detail: returned.stateMatches
                  ? `${returned.state} is the state sent (RFC 6749 §10.12)`
                  : `${JSON.stringify(returned.state ?? null)} is not the state sent: a real app must stop here (another sign-in was started since, or the answer is forged)`,
              }}
            />
            {returned.issMatches !== null ? (
              <Check check={{ name: 'iss', passed: returned.issMatches, detail: `${returned.iss} ${returned.issMatches ? 'is' : 'is not'} the issuer (RFC 9207)` }} />
            ) : null}
          </ul>
          {returned.code !== undefined && returned.stateMatches && (run.token === null || run.token.status === 401) ? (
            <form method="post" action={`${base}/exchange`}>
              <CsrfField token={props.csrfToken} />
              {props.app.isPublic ? (
                <p>This app is public: it exchanges the code with its client id and the PKCE verifier, no secret.</p>
              ) : (
                <div class="field">
                  <label for="playground_secret">Client secret</label>
                  <p class="hint" id="playground_secret-hint">
                    Latch keeps only a fingerprint of the secret, so paste it here to exchange the code as your app does. It is sent once to the
                    token endpoint (client_secret_basic) and never stored, logged or shown.
                  </p>
                  <input id="playground_secret" name="client_secret" type="password" autocomplete="off" spellcheck={false} class="mono" aria-describedby="playground_secret-hint" />
                </div>
              )}
              <div class="actions">
                <button type="submit">{run.token === null ? 'Exchange the code' : 'Try the exchange again'}</button>
              </div>
            </form>
          ) : null}
        </li>
      ) : null}
      {run.token !== null ? (
        <li>
          <h2 id="step-token">The token response</h2>
          <p>
            <code>POST {props.issuer}/oauth2/token</code> with the code, the redirect URL and the PKCE verifier, authenticated as your app:
          </p>
          <Status result={run.token} what="The token endpoint" />
          <Json id="playground_token" value={run.token.body} label="Token response" />
          {user !== undefined ? (
            <>
              <h3>The user object</h3>
              <p>Latch puts the person in the token response, so your app needs no second request to know who signed in:</p>
              <Json id="playground_user" value={user} label="The user object of the token response" />
            </>
          ) : null}
        </li>
      ) : null}
      {run.userinfo !== null ? (
        <li>
          <h2 id="step-userinfo">Userinfo</h2>
          <p>
            <code>GET {props.issuer}/oauth2/userinfo</code> with the access token:
          </p>
          <Status result={run.userinfo} what="The userinfo endpoint" />
          <Json id="playground_userinfo" value={run.userinfo.body} label="Userinfo response" />
        </li>
      ) : null}
      {run.idToken !== null ? (
        <li>
          <h2 id="step-id-token">The id_token, decoded and checked</h2>
          <ul class="checks" aria-label="id_token checks">
            {run.idToken.checks.map((check) => (
              <Check check={check} />
            ))}
          </ul>
          <h3>Header</h3>
          <Json id="playground_id_token_header" value={run.idToken.header} label="id_token header" />
          <h3>Claims</h3>
          <Json id="playground_id_token_claims" value={run.idToken.claims} label="id_token claims" />
        </li>
      ) : null}
    </ol>
  );
}

export function DeveloperPlaygroundPage(props: DeveloperPlaygroundPageProps) {
  const { app, callback, csrfToken } = props;
  const base = `/developer/apps/${app.clientId}/playground`;
  return (
    <Layout title={`Try sign-in: ${app.name}`} signedIn wide withCopyScript current="developer">
      <p>
        <a href={`/developer/apps/${app.clientId}`}>← Back to {app.name}</a>
      </p>
      <Notice>{props.notice && PLAYGROUND_NOTICES[props.notice]}</Notice>
      <section class="card" aria-labelledby="playground-heading">
        <h1 id="playground-heading">Try sign-in: {app.name}</h1>
        <p class="lead">
          Run this app’s real sign-in and see each step: the authorization request, what comes back, the token response with the user, userinfo,
          and the id_token with each check your app must make.
        </p>
        <p>
          Latch plays your app’s back end at a test callback of its own, asking for <code>{props.scope}</code> with state, nonce and PKCE (S256),
          as the console’s code does. Sign in as yourself: the playground belongs to your console session.
        </p>
        {callback.registered ? (
          <>
            <p>
              Test callback (one of this app’s redirect URLs, added for the playground): <code>{callback.uri}</code>
            </p>
            <PostButton action={`${base}/callback-uri/remove`} csrfToken={csrfToken} label="Remove the test callback" />
            <PostButton action={`${base}/start`} csrfToken={csrfToken} label={props.run ? 'Start over' : 'Start a sign-in'} variant="primary" />
            {props.run ? (
              <PostButton action={`${base}/reset`} csrfToken={csrfToken} label="Forget this run">
                <p class="hint">The run, its tokens included, is kept in this browser for 15 minutes; forget it now if you are done.</p>
              </PostButton>
            ) : null}
          </>
        ) : callback.cannotAdd ? (
          <p class="hint">
            The test callback <code>{callback.uri}</code> cannot be added here: {callback.cannotAdd}.
          </p>
        ) : (
          <PostButton action={`${base}/callback-uri`} csrfToken={csrfToken} label="Add the test callback" variant="primary">
            <p>
              The playground needs Latch’s test callback among this app’s redirect URLs: <code>{callback.uri}</code>. It is added only when you
              ask, marked as the playground’s on the app page, and you can remove it at any time.
            </p>
          </PostButton>
        )}
      </section>
      {props.run && callback.registered ? (
        <section class="card" aria-label="Steps of the sign-in">
          <Steps props={props} run={props.run} />
        </section>
      ) : null}
    </Layout>
  );
}
