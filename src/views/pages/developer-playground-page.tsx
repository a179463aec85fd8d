/**
 * The playground page (developer/playground-routes.ts): an app's real sign-in, one step after the other, with
 * everything the app would send and receive. Forms and links only: it works without JavaScript.
 */
import { CopyableBlock, CsrfField } from '../components/field.js';
import { Notice } from '../components/notice.js';
import { PostButton } from '../components/post-button.js';
import type { MessageKey } from '../../i18n/messages/index.js';
import type { CatalogueText } from '../../i18n/translator.js';
import { Layout } from '../layout.js';
import { asPage, useI18n } from '../page-context.js';

/** An HTTP answer as the app would read it: status and JSON body (or text, when it was not JSON). */
export interface PlaygroundHttpResult {
  status: number;
  body: unknown;
}

export interface PlaygroundCheck {
  name: string;
  passed: boolean;
  /** What was compared, in words of the catalogue (developer/playground-checks.ts). */
  detail: CatalogueText;
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
  'callback-added': 'developer.playground.notice.callbackAdded',
  'no-run': 'developer.playground.notice.noRun',
} as const satisfies Record<string, MessageKey>;

export interface DeveloperPlaygroundPageProps {
  csrfToken: string;
  issuer: string;
  app: { clientId: string; name: string; isPublic: boolean };
  /** cannotAdd: why the test callback cannot be a redirect URL here, told in the page's language by the route. */
  callback: { uri: string; registered: boolean; cannotAdd: string | null };
  scope: string;
  notice?: keyof typeof PLAYGROUND_NOTICES | undefined;
  run: PlaygroundRun | null;
}

function Verdict({ passed }: { passed: boolean }) {
  const { t } = useI18n();
  return <span class={passed ? 'check-passed' : 'check-failed'}>{passed ? t('developer.playground.passed') : t('developer.playground.failed')}</span>;
}

function Check({ check }: { check: PlaygroundCheck }) {
  const { text } = useI18n();
  return (
    <li>
      <Verdict passed={check.passed} /> <strong>{check.name}</strong>: {text(check.detail)}
    </li>
  );
}

function Json({ id, value, label }: { id: string; value: unknown; label: string }) {
  return <CopyableBlock id={id} text={typeof value === 'string' ? value : JSON.stringify(value, null, 2)} label={label} />;
}

function Status({ result, what }: { result: PlaygroundHttpResult; what: string }) {
  const { rich } = useI18n();
  const ok = result.status >= 200 && result.status < 300;
  const status = <code>{result.status}</code>;
  return (
    <p>
      <Verdict passed={ok} />{' '}
      {!ok && result.body && typeof result.body === 'object' && 'error' in result.body
        ? rich('developer.playground.answeredWith', { what, status, error: <code>{String((result.body as Record<string, unknown>).error)}</code> })
        : rich('developer.playground.answered', { what, status })}
    </p>
  );
}

/** What came back with an error: Latch's error, its description (English, as the app receives it), and whether the person chose Deny. */
function ReturnedError({ error, description }: { error: string; description: string | undefined }) {
  const { rich, locale } = useI18n();
  const denied = error === 'access_denied';
  // The error_description as it came back: Latch's words for the app's developer, English in every language.
  const parts = { error: <code>error={error}</code>, description: <span lang={locale === 'en' ? undefined : 'en'}>{description}</span> };
  if (description) return <>{rich(denied ? 'developer.playground.sentBackDescribedDenied' : 'developer.playground.sentBackDescribed', parts)}</>;
  return <>{rich(denied ? 'developer.playground.sentBackDenied' : 'developer.playground.sentBack', parts)}</>;
}

function Steps({ props, run }: { props: DeveloperPlaygroundPageProps; run: PlaygroundRun }) {
  const { t, rich } = useI18n();
  const base = `/developer/apps/${props.app.clientId}/playground`;
  const returned = run.returned;
  const user = run.token && run.token.body && typeof run.token.body === 'object' ? (run.token.body as Record<string, unknown>).user : undefined;
  return (
    <ol class="steps">
      <li>
        <h2 id="step-authorize">{t('developer.playground.authorize')}</h2>
        <p>{t('developer.playground.authorizeLead')}</p>
        <CopyableBlock id="playground_authorize_url" text={run.authorizeUrl} label={t('developer.playground.authorizeLabel')} wrap />
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
        <p class="hint">{t('developer.playground.sealed')}</p>
        {returned === null ? (
          <p>
            <a class="button" id="playground_continue" href={run.authorizeUrl}>
              {t('developer.playground.continue')}
            </a>
          </p>
        ) : null}
      </li>
      {returned !== null ? (
        <li>
          <h2 id="step-callback">{t('developer.playground.callback')}</h2>
          {returned.error !== undefined ? (
            <p>
              <Verdict passed={false} /> <ReturnedError error={returned.error} description={returned.errorDescription} />
            </p>
          ) : (
            <dl class="event">
              <dt>code</dt>
              <dd>
                <code id="playground_code">{returned.code ?? t('developer.playground.noCode')}</code>
              </dd>
            </dl>
          )}
          <ul class="checks">
            <Check
              check={{
                name: 'state',
                passed: returned.stateMatches,
                detail: returned.stateMatches
                  ? { key: 'developer.check.stateSent', params: { state: String(returned.state) } }
                  : { key: 'developer.check.stateNotSent', params: { state: JSON.stringify(returned.state ?? null) } },
              }}
            />
            {returned.issMatches !== null ? (
              <Check
                check={{
                  name: 'iss',
                  passed: returned.issMatches,
                  detail: { key: returned.issMatches ? 'developer.check.issReturned' : 'developer.check.issNotReturned', params: { iss: String(returned.iss) } },
                }}
              />
            ) : null}
          </ul>
          {returned.code !== undefined && returned.stateMatches && (run.token === null || run.token.status === 401) ? (
            <form method="post" action={`${base}/exchange`}>
              <CsrfField token={props.csrfToken} />
              {props.app.isPublic ? (
                <p>{t('developer.playground.public')}</p>
              ) : (
                <div class="field">
                  <label for="playground_secret">{t('developer.secret.label')}</label>
                  <p class="hint" id="playground_secret-hint">
                    {t('developer.playground.secretHint')}
                  </p>
                  <input id="playground_secret" name="client_secret" type="password" autocomplete="off" spellcheck={false} class="mono" aria-describedby="playground_secret-hint" />
                </div>
              )}
              <div class="actions">
                <button type="submit">{run.token === null ? t('developer.playground.exchange') : t('developer.playground.exchangeAgain')}</button>
              </div>
            </form>
          ) : null}
        </li>
      ) : null}
      {run.token !== null ? (
        <li>
          <h2 id="step-token">{t('developer.playground.token')}</h2>
          <p>{rich('developer.playground.tokenLead', { request: <code>POST {props.issuer}/oauth2/token</code> })}</p>
          <Status result={run.token} what={t('developer.playground.tokenEndpoint')} />
          <Json id="playground_token" value={run.token.body} label={t('developer.playground.tokenLabel')} />
          {user !== undefined ? (
            <>
              <h3>{t('developer.playground.user')}</h3>
              <p>{t('developer.playground.userLead')}</p>
              <Json id="playground_user" value={user} label={t('developer.playground.userLabel')} />
            </>
          ) : null}
        </li>
      ) : null}
      {run.userinfo !== null ? (
        <li>
          <h2 id="step-userinfo">{t('developer.playground.userinfo')}</h2>
          <p>{rich('developer.playground.userinfoLead', { request: <code>GET {props.issuer}/oauth2/userinfo</code> })}</p>
          <Status result={run.userinfo} what={t('developer.playground.userinfoEndpoint')} />
          <Json id="playground_userinfo" value={run.userinfo.body} label={t('developer.playground.userinfoLabel')} />
        </li>
      ) : null}
      {run.idToken !== null ? (
        <li>
          <h2 id="step-id-token">{t('developer.playground.idToken')}</h2>
          <ul class="checks" aria-label={t('developer.playground.idTokenChecks')}>
            {run.idToken.checks.map((check) => (
              <Check check={check} />
            ))}
          </ul>
          <h3>{t('developer.playground.header')}</h3>
          <Json id="playground_id_token_header" value={run.idToken.header} label={t('developer.playground.headerLabel')} />
          <h3>{t('developer.playground.claims')}</h3>
          <Json id="playground_id_token_claims" value={run.idToken.claims} label={t('developer.playground.claimsLabel')} />
        </li>
      ) : null}
    </ol>
  );
}

export const DeveloperPlaygroundPage = asPage(function DeveloperPlaygroundPage(props: DeveloperPlaygroundPageProps) {
  const { t, rich } = useI18n();
  const { app, callback, csrfToken } = props;
  const base = `/developer/apps/${app.clientId}/playground`;
  return (
    <Layout title={t('developer.playground.title', { app: app.name })} signedIn wide withCopyScript current="developer">
      <p>
        <a href={`/developer/apps/${app.clientId}`}>{t('developer.playground.back', { app: app.name })}</a>
      </p>
      <Notice>{props.notice && t(PLAYGROUND_NOTICES[props.notice])}</Notice>
      <section class="card" aria-labelledby="playground-heading">
        <h1 id="playground-heading">{t('developer.playground.title', { app: app.name })}</h1>
        <p class="lead">{t('developer.playground.lead')}</p>
        <p>{rich('developer.playground.plays', { scope: <code>{props.scope}</code> })}</p>
        {callback.registered ? (
          <>
            <p>{rich('developer.playground.testCallback', { uri: <code>{callback.uri}</code> })}</p>
            <PostButton action={`${base}/callback-uri/remove`} csrfToken={csrfToken} label={t('developer.playground.removeCallback')} />
            <PostButton action={`${base}/start`} csrfToken={csrfToken} label={props.run ? t('developer.playground.startOver') : t('developer.playground.start')} variant="primary" />
            {props.run ? (
              <PostButton action={`${base}/reset`} csrfToken={csrfToken} label={t('developer.playground.forget')}>
                <p class="hint">{t('developer.playground.forgetHint')}</p>
              </PostButton>
            ) : null}
          </>
        ) : callback.cannotAdd ? (
          <p class="hint">{rich('developer.playground.cannotAdd', { uri: <code>{callback.uri}</code>, problem: callback.cannotAdd })}</p>
        ) : (
          <PostButton action={`${base}/callback-uri`} csrfToken={csrfToken} label={t('developer.playground.addCallback')} variant="primary">
            <p>{rich('developer.playground.needsCallback', { uri: <code>{callback.uri}</code> })}</p>
          </PostButton>
        )}
      </section>
      {props.run && callback.registered ? (
        <section class="card" aria-label={t('developer.playground.steps')}>
          <Steps props={props} run={props.run} />
        </section>
      ) : null}
    </Layout>
  );
});
