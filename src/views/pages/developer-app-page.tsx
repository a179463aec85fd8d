import { AppFields } from '../components/app-fields.js';
import { CopyableBlock, CopyableValue, CsrfField } from '../components/field.js';
import { Notice } from '../components/notice.js';
import { PostButton } from '../components/post-button.js';
import type { MessageKey } from '../../i18n/messages/index.js';
import type { CatalogueText } from '../../i18n/translator.js';
import { Layout } from '../layout.js';
import { asPage, useI18n } from '../page-context.js';
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
  /** The framework it is shown with ("Python: Authlib" with "Flask"), if any. */
  framework?: string;
  /** The install command. */
  install: string;
  /** KEY=value lines (dotenv format), with the secret as a placeholder. Its block's id is `snippet-<id>-env`. */
  environment: string;
  files: SnippetFile[];
  /** Short notes shown under the title: where the callback is, how to run it (told in the page's language). */
  notes: CatalogueText[];
}


/** What an app's page confirms after a redirect, chosen by its key (`?notice=saved`): no text comes from the URL. */
export const APP_NOTICES = {
  saved: 'developer.app.notice.saved',
  'redirect-added': 'developer.app.notice.redirectAdded',
  'playground-callback-removed': 'developer.app.notice.playgroundCallbackRemoved',
  'secret-shown': 'developer.app.notice.secretShown',
} as const satisfies Record<string, MessageKey>;
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
  snippetsNote?: CatalogueText;
}

/**
 * A block of code to copy: <pre><code> with the copy button of CopyableBlock (it copies the text of the element
 * with the id). The id is stable: tests take the code from the rendered page by it.
 */
function CodeBlock({ id, code, label }: { id: string; code: string; label: string }) {
  const { t } = useI18n();
  return (
    <div class="copyable-block">
      {/* Focusable: long lines scroll sideways, and keyboard users must be able to scroll them (WCAG 2.1.1). */}
      <pre aria-label={label} tabIndex={0}>
        <code id={id}>{code}</code>
      </pre>
      <button type="button" class="secondary copy" data-copy={id} data-say-copied={t('copy.done')} data-say-select={t('copy.select')} hidden>
        {t('copy')}
      </button>
    </div>
  );
}

/** One library's integration: a <details> (works without JavaScript) with the install line, the environment and the code. */
function SnippetSection({ snippet, open }: { snippet: IntegrationSnippet; open: boolean }) {
  const { t, text, rich } = useI18n();
  const title = snippet.framework === undefined ? snippet.title : t('developer.guide.titleWith', { library: snippet.title, framework: snippet.framework });
  return (
    <details class="snippet" id={`guide-${snippet.id}`} open={open}>
      <summary>
        <strong>{title}</strong>
      </summary>
      {snippet.notes.map((note) => (
        <p>{text(note)}</p>
      ))}
      <p>{rich('developer.guide.install', { command: <code>{snippet.install}</code> })}</p>
      <h3>{t('developer.guide.environment')}</h3>
      <CodeBlock id={`snippet-${snippet.id}-env`} code={snippet.environment} label={t('developer.guide.environmentFor', { title })} />
      {snippet.files.map((file) => (
        <>
          <h3>
            <code>{file.name}</code>
          </h3>
          <CodeBlock id={file.id} code={file.code} label={t('developer.guide.fileFor', { file: file.name, title })} />
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
  /** Failures of the app, newest first. Their error_description is Latch's answer to the app, in English. */
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

/** An error_description as the app received it: English (OAuth error responses are), marked so on another page. */
function Description({ text }: { text: string }) {
  const { locale } = useI18n();
  return <p lang={locale === 'en' ? undefined : 'en'}>{text}</p>;
}

function FailedRequestItem({ event, base, csrfToken }: { event: FailedRequestView; base: string; csrfToken: string }) {
  const { t, rich, dateTime } = useI18n();
  const mismatch = event.mismatch;
  return (
    <div class="event">
      {rich('developer.failure.at', {
        error: (
          <strong>
            <code>{event.error}</code>
          </strong>
        ),
        endpoint: <code>{event.endpoint}</code>,
        time: dateTime(event.createdAt),
      })}
      <Description text={event.description} />
      <dl>
        <dt>{t('developer.failure.requestId')}</dt>
        <dd>
          <code>{event.requestId}</code>
        </dd>
        {mismatch ? (
          <>
            <dt>{t('developer.failure.sent')}</dt>
            <dd>
              <code>{mismatch.received}</code>
            </dd>
            <dt>{t('developer.failure.closest')}</dt>
            <dd>{mismatch.closest ? <code>{mismatch.closest}</code> : t('developer.failure.noneRegistered')}</dd>
            {mismatch.alreadyRegistered ? (
              <>
                <dt>{t('developer.failure.now')}</dt>
                <dd>{t('developer.failure.registeredNow')}</dd>
              </>
            ) : mismatch.difference ? (
              <>
                <dt>{t('developer.failure.differIn')}</dt>
                <dd>
                  <RedirectUrlDifference difference={mismatch.difference} />
                </dd>
              </>
            ) : null}
          </>
        ) : null}
      </dl>
      {mismatch?.canAdd ? (
        <PostButton action={`${base}/redirect-uris/add`} csrfToken={csrfToken} label={t('developer.failure.add')} fields={{ redirect_uri: mismatch.received }} inline />
      ) : mismatch?.addProblem ? (
        <p class="hint">{t('developer.failure.cannotAdd', { problem: mismatch.addProblem })}</p>
      ) : null}
    </div>
  );
}

function FailedRequests(props: DeveloperAppPageProps & { base: string }) {
  const { t } = useI18n();
  const hasMismatch = props.failedRequests.some((event) => event.mismatch !== null);
  return (
    <section class="card" aria-labelledby="failures-heading">
      <h2 id="failures-heading">{t('developer.failures')}</h2>
      {props.failedRequests.length === 0 ? (
        <p class="muted">{t('developer.failures.none')}</p>
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
  const { t, rich, dateTime } = useI18n();
  if (declined.length === 0) return null;
  return (
    <section class="card" aria-labelledby="declined-heading">
      <h2 id="declined-heading">{t('developer.declined')}</h2>
      <p>
        {t('developer.declined.chose', { count: declined.length, time: dateTime(declined[0] as Date) })}{' '}
        {rich('developer.declined.received', { error: <code>error=access_denied</code> })}
      </p>
    </section>
  );
}

/** Requests that succeeded with something worth knowing (scope values Latch ignored, OIDC Core §3.1.2.1). */
function Notes({ notes }: { notes: FailedRequestView[] }) {
  const { t, rich, dateTime } = useI18n();
  return (
    <section class="card" aria-labelledby="notes-heading">
      <h2 id="notes-heading">{t('developer.notes')}</h2>
      {notes.map((note) => (
        <div class="event">
          {rich('developer.failure.at', { error: <code>{note.error}</code>, endpoint: <code>{note.endpoint}</code>, time: dateTime(note.createdAt) })}
          <Description text={note.description} />
        </div>
      ))}
    </section>
  );
}

export const DeveloperAppPage = asPage(function DeveloperAppPage(props: DeveloperAppPageProps) {
  const { t, text, rich, dateTime, duration } = useI18n();
  const { app, csrfToken, guide } = props;
  const base = `/developer/apps/${app.clientId}`;
  const previousSecretActive = app.previousSecretExpiresAt !== null && app.previousSecretExpiresAt > props.now;
  return (
    <Layout title={app.name} signedIn wide withCopyScript current="developer">
      <p>
        <a href="/developer">{t('developer.app.allApps')}</a>
      </p>
      <Notice>{props.notice && t(APP_NOTICES[props.notice])}</Notice>

      <section class="card" aria-labelledby="app-heading">
        <h1 id="app-heading">
          {app.logoUrl ? <img class="logo" src={app.logoUrl} alt="" width={40} height={40} /> : null}
          {app.name}
        </h1>
        <p class="muted">
          {t('developer.app.registeredAt', { time: dateTime(app.createdAt) })}
          {app.homepageUrl ? (
            <>
              {' · '}
              <a href={app.homepageUrl} rel="noopener noreferrer">
                {app.homepageUrl}
              </a>
            </>
          ) : null}
        </p>
        <p>{props.liveGrants === 0 ? t('developer.app.noLiveGrants') : t('developer.app.liveGrants', { count: props.liveGrants })}</p>
        <label for="client_id">{t('developer.clientId')}</label>
        <CopyableValue id="client_id" value={app.clientId} label={t('developer.clientId')} />
      </section>

      {/* Failures first when there are any: they are what a developer comes to this page for. */}
      {props.failedRequests.length > 0 ? <FailedRequests {...props} base={base} /> : null}

      <section class="card" aria-labelledby="playground-heading">
        <h2 id="playground-heading">{t('developer.app.trySignIn')}</h2>
        <p>{t('developer.app.trySignInLead')}</p>
        <p>
          <a class="button" href={`${base}/playground`}>
            {t('developer.app.trySignIn')}
          </a>
        </p>
      </section>

      {app.tokenEndpointAuthMethod === 'none' ? (
        <section class="card" aria-labelledby="secret-heading">
          <h2 id="secret-heading">{t('developer.secret.label')}</h2>
          <p>{t('developer.app.publicNoSecret')}</p>
        </section>
      ) : (
        <section class="card" aria-labelledby="secret-heading">
          <h2 id="secret-heading">{t('developer.secret.label')}</h2>
          <p>{t('developer.app.secretLead')}</p>
          {previousSecretActive ? <Notice>{t('developer.app.previousSecretUntil', { time: dateTime(app.previousSecretExpiresAt as Date) })}</Notice> : null}
          <form method="post" action={`${base}/secret`}>
            <CsrfField token={csrfToken} />
            <fieldset>
              <legend>{t('developer.app.rotate.legend')}</legend>
              {props.graceSeconds > 0 ? (
                <label class="checkbox">
                  <input type="radio" name="grace" value="default" checked />
                  {t('developer.app.rotate.keep', { duration: duration(props.graceSeconds) })}
                </label>
              ) : null}
              <label class="checkbox">
                <input type="radio" name="grace" value="none" checked={props.graceSeconds === 0} />
                {t('developer.app.rotate.stop')}
              </label>
            </fieldset>
            <p class="hint">{t('developer.app.rotate.hint')}</p>
            <div class="actions">
              <button type="submit">{t('developer.app.rotate.submit')}</button>
            </div>
          </form>
        </section>
      )}

      <section class="card" aria-labelledby="settings-heading">
        <h2 id="settings-heading">{t('developer.app.settings')}</h2>
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
              {rich('developer.app.playgroundCallback', {
                uri: <code>{props.playgroundCallback.uri}</code>,
                playground: <a href={`${base}/playground`}>{t('developer.app.playgroundLink')}</a>,
              })}
            </p>
          ) : null}
          <label class="checkbox" for="require_mfa">
            <input type="checkbox" id="require_mfa" name="require_mfa" value="yes" checked={app.requireMfa} aria-describedby="require_mfa-hint" />
            {t('developer.app.requireMfa')}
          </label>
          <p class="hint" id="require_mfa-hint">
            {t('developer.app.requireMfaHint')}
          </p>
          <div class="actions">
            <button type="submit">{t('developer.app.save')}</button>
          </div>
        </form>
      </section>

      {props.failedRequests.length === 0 ? <FailedRequests {...props} base={base} /> : null}
      <Declined declined={props.declined} />
      {props.notes.length > 0 ? <Notes notes={props.notes} /> : null}

      <section class="card" aria-labelledby="guide-heading">
        <h2 id="guide-heading">{t('developer.guide')}</h2>
        <p>{rich(app.tokenEndpointAuthMethod === 'none' ? 'developer.guide.leadPublic' : 'developer.guide.lead', { scope: <code>openid email profile</code> })}</p>
        {guide.snippetsNote ? <p class="hint">{text(guide.snippetsNote)}</p> : null}
        {guide.snippets.map((snippet, index) => (
          <SnippetSection snippet={snippet} open={index === 0} />
        ))}
        <details class="snippet" id="guide-curl">
          <summary>
            <strong>{t('developer.guide.curl')}</strong>
          </summary>
          <p>
            {rich('developer.guide.curlLead', {
              code: <code>code</code>,
              state: <code>state</code>,
              codeVerifier: <code>code_verifier</code>,
              codeChallenge: <code>code_challenge</code>,
            })}
          </p>
          <h3>{t('developer.guide.authorize')}</h3>
          <CopyableBlock id="guide_authorize" text={guide.authorizeUrl} label={t('developer.guide.authorizeLabel')} wrap />
          {guide.tokenFetchPublic !== undefined ? (
            <>
              <h3>{t('developer.guide.tokenPublic')}</h3>
              <CopyableBlock id="guide_token_public" text={guide.tokenFetchPublic} label={t('developer.guide.tokenPublicLabel')} />
              <p class="hint">{t('developer.guide.cors')}</p>
            </>
          ) : (
            <>
              <h3>{t('developer.guide.tokenBasic')}</h3>
              <CopyableBlock id="guide_token_basic" text={guide.tokenCurlBasic} label={t('developer.guide.tokenBasicLabel')} />
              <h3>{t('developer.guide.tokenPost')}</h3>
              <CopyableBlock id="guide_token_post" text={guide.tokenCurlPost} label={t('developer.guide.tokenPostLabel')} />
            </>
          )}
          <h3>{t('developer.guide.userinfo')}</h3>
          <CopyableBlock id="guide_userinfo" text={guide.userinfoCurl} label={t('developer.guide.userinfoLabel')} />
          <h3>{t('developer.guide.environmentForBackEnd')}</h3>
          <CopyableBlock id="guide_env" text={guide.environment} label={t('developer.guide.environmentVariables')} />
        </details>
        <p class="hint">{rich('developer.guide.discovery', { url: <code>{props.issuer}/.well-known/openid-configuration</code> })}</p>
      </section>

      <section class="card danger-zone" aria-labelledby="delete-heading">
        <h2 id="delete-heading">{t('developer.app.delete')}</h2>
        <form method="post" action={`${base}/delete`}>
          <CsrfField token={csrfToken} />
          <label class="checkbox" for="confirm_delete">
            <input type="checkbox" id="confirm_delete" name="confirm" value="yes" required aria-describedby={props.errors.confirmDelete ? 'confirm_delete-error' : undefined} />
            {t('developer.app.deleteConfirm', { app: app.name })}
          </label>
          {props.errors.confirmDelete ? (
            <p class="field-error" id="confirm_delete-error">
              {t('developer.app.deleteTick')}
            </p>
          ) : null}
          <div class="actions">
            <button type="submit" class="danger">
              {t('developer.app.deleteSubmit')}
            </button>
          </div>
        </form>
      </section>
    </Layout>
  );
});
