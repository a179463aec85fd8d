import { CopyableBlock, CopyableValue } from '../components/field.js';
import { Layout } from '../layout.js';
import { asPage, useI18n } from '../page-context.js';

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

function PreviousSecret({ graceSeconds, expiresAt }: { graceSeconds: number; expiresAt: Date | null }) {
  const { t, duration, dateTime } = useI18n();
  if (graceSeconds > 0 && expiresAt) {
    return <p>{t('developer.secret.previousKeeps', { duration: duration(graceSeconds), time: dateTime(expiresAt) })}</p>;
  }
  return <p>{t('developer.secret.previousStopped')}</p>;
}

/** The settings for the app's back end, as the code on the app's page reads them (its "Integration guide"). */
function EnvironmentBlock({ environment, withSecret }: { environment: string; withSecret: boolean }) {
  const { t } = useI18n();
  return (
    <>
      <h2>{withSecret ? t('developer.secret.environmentWithSecret') : t('developer.secret.environment')}</h2>
      <CopyableBlock id="secret_env" text={environment} label={t('developer.guide.environmentVariables')} />
      <p class="hint">{withSecret ? t('developer.secret.environmentWithSecretHint') : t('developer.secret.environmentHint')}</p>
    </>
  );
}

/** The only page that ever shows a client secret: Latch keeps only its hash (docs/protocol-decisions.md "Secrets at rest"). */
export const ClientSecretPage = asPage(function ClientSecretPage(props: ClientSecretPageProps) {
  const { t, rich } = useI18n();
  const appPage = `/developer/apps/${props.clientId}`;
  return (
    <Layout title={props.reason === 'registered' ? t('developer.secret.titleRegistered') : t('developer.secret.titleRotated')} signedIn wide withCopyScript>
      <div class="card">
        <h1>{props.reason === 'registered' ? t('developer.secret.headingRegistered', { app: props.appName }) : t('developer.secret.headingRotated', { app: props.appName })}</h1>
        <label for="client_id">{t('developer.clientId')}</label>
        <CopyableValue id="client_id" value={props.clientId} label={t('developer.clientId')} />
        {props.clientSecret === null ? (
          <>
            <p>{rich('developer.secret.public', { noSecret: <strong>{t('developer.secret.noSecret')}</strong> })}</p>
            <EnvironmentBlock environment={props.environment} withSecret={false} />
            <div class="actions">
              <a class="button" href={appPage}>
                {t('developer.secret.goToApp')}
              </a>
            </div>
          </>
        ) : (
          <>
            <label for="client_secret">{t('developer.secret.label')}</label>
            <CopyableValue id="client_secret" value={props.clientSecret} label={t('developer.secret.label')} />
            <div class="secret-warning" role="note">
              <strong>{t('developer.secret.copyNow')}</strong> {t('developer.secret.onlyFingerprint')}
            </div>
            {props.previousSecret ? <PreviousSecret {...props.previousSecret} /> : null}
            <EnvironmentBlock environment={props.environment} withSecret />
            <div class="actions">
              <a class="button" href={appPage}>
                {t('developer.secret.saved')}
              </a>
            </div>
          </>
        )}
      </div>
    </Layout>
  );
});
