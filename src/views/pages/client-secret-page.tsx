import { CopyableValue } from '../components/field.js';
import { Layout } from '../layout.js';

export interface ClientSecretPageProps {
  appName: string;
  clientId: string;
  clientSecret: string;
  /** 'registered' right after registration; 'rotated' after a rotation, with what happens to the old secret. */
  reason: 'registered' | 'rotated';
  previousSecretStatement?: string;
}

/** The only page that ever shows a client secret: Latch keeps only its hash (DESIGN "Secrets at rest"). */
export function ClientSecretPage(props: ClientSecretPageProps) {
  const appPage = `/developer/apps/${props.clientId}`;
  return (
    <Layout title={props.reason === 'registered' ? 'App registered' : 'New client secret'} signedIn wide withCopyScript>
      <div class="card">
        <h1>{props.reason === 'registered' ? `${props.appName} is registered` : `New client secret for ${props.appName}`}</h1>
        <label for="client_id">Client id</label>
        <CopyableValue id="client_id" value={props.clientId} label="Client id" />
        <label for="client_secret">Client secret</label>
        <CopyableValue id="client_secret" value={props.clientSecret} label="Client secret" />
        <div class="secret-warning" role="note">
          <strong>Copy the secret now: this is the only time Latch shows it.</strong> Latch keeps only a fingerprint of it and cannot show it
          again (you can rotate it for a new one). Keep it in your back end, for example in an environment variable or a secrets manager: never
          in a browser, a mobile app, or source control.
        </div>
        {props.previousSecretStatement ? <p>{props.previousSecretStatement}</p> : null}
        <div class="actions">
          <a class="button" href={appPage}>
            I have saved the secret: go to the app
          </a>
        </div>
      </div>
    </Layout>
  );
}
