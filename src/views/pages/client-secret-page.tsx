import { CopyableValue } from '../components/field.js';
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
}

function describePreviousSecret({ graceSeconds, expiresAt }: { graceSeconds: number; expiresAt: Date | null }): string {
  if (graceSeconds > 0 && expiresAt) {
    return `The previous secret keeps working for ${describeDuration(graceSeconds)}, until ${formatTime(expiresAt)}; then it stops. Deploy the new secret before then.`;
  }
  return 'The previous secret stopped working immediately.';
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
