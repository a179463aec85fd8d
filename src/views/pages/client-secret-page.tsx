import { CopyableBlock, CopyableValue } from '../components/field.js';
import { describeDuration, formatTime } from '../format.js';
import { Layout } from '../layout.js';

export interface ClientSecretPageProps {
  appName: string;
  clientId: string;
  /** Null for a public client (a single-page or mobile app), which has none. */
  clientSecret: string | null;
  /** 'registered' right after registration; 'rotated' after a rotation, with what happens to the old secret. */
  reason: 'registered' | 'rotated';
  /** After a rotation: the grace period chosen and when the previous secret stops working (null: it already has). */
  previousSecret?: { graceSeconds: number; expiresAt: Date | null };
  /**
   * The environment block the console's snippets read (src/developer/integration-guide.ts), with this secret
   * filled in: shown here once, like the secret, and nowhere else (the app page has a placeholder).
   */
  environment: string;
}

function describePreviousSecret({ graceSeconds, expiresAt }: { graceSeconds: number; expiresAt: Date | null }): string {
  if (graceSeconds > 0 && expiresAt) {
    return `The previous secret keeps working for ${describeDuration(graceSeconds)}, until ${formatTime(expiresAt)}; then it stops. Deploy the new secret before then.`;
  }
  return 'The previous secret stopped working immediately.';
}

/** The settings for the app's back end, as the code on the app's page reads them (its "Integration guide"). */
function EnvironmentBlock({ environment, withSecret }: { environment: string; withSecret: boolean }) {
  return (
    <>
      <h2>{withSecret ? 'Environment for your back end (.env), with the secret' : 'Environment for your app (.env)'}</h2>
      <CopyableBlock id="secret_env" text={environment} label="Environment variables" />
      <p class="hint">
        {withSecret
          ? 'Save it as .env beside your app (and keep that file out of source control): the code in the app page\'s integration guide reads it. Like the secret, it is shown only now.'
          : 'The code in the app page\'s integration guide reads it.'}
      </p>
    </>
  );
}

/** The only page that ever shows a client secret: Latch keeps only its hash (docs/protocol-decisions.md "Secrets at rest"). */
export function ClientSecretPage(props: ClientSecretPageProps) {
  const appPage = `/developer/apps/${props.clientId}`;
  return (
    <Layout title={props.reason === 'registered' ? 'App registered' : 'New client secret'} signedIn wide withCopyScript>
      <div class="card">
        <h1>{props.reason === 'registered' ? `${props.appName} is registered` : `New client secret for ${props.appName}`}</h1>
        <label for="client_id">Client id</label>
        <CopyableValue id="client_id" value={props.clientId} label="Client id" />
        {props.clientSecret === null ? (
          <>
            <p>
              This is a single-page or mobile app: it has <strong>no client secret</strong>. It sends its client id alone to the token endpoint and
              must use PKCE (code_challenge_method S256) on every sign-in.
            </p>
            <EnvironmentBlock environment={props.environment} withSecret={false} />
            <div class="actions">
              <a class="button" href={appPage}>
                Go to the app
              </a>
            </div>
          </>
        ) : (
          <>
            <label for="client_secret">Client secret</label>
            <CopyableValue id="client_secret" value={props.clientSecret} label="Client secret" />
            <div class="secret-warning" role="note">
              <strong>Copy the secret now: this is the only time Latch shows it.</strong> Latch keeps only a fingerprint of it and cannot show it
              again (you can rotate it for a new one). Keep it in your back end, for example in an environment variable or a secrets manager: never
              in a browser, a mobile app, or source control.
            </div>
            {props.previousSecret ? <p>{describePreviousSecret(props.previousSecret)}</p> : null}
            <EnvironmentBlock environment={props.environment} withSecret />
            <div class="actions">
              <a class="button" href={appPage}>
                I have saved the secret: go to the app
              </a>
            </div>
          </>
        )}
      </div>
    </Layout>
  );
}
