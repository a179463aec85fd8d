/**
 * "Two-step verification" (/account/two-step): the authenticator app (set it up with a QR code or the secret
 * as text, confirmed by a first code; or remove it), the recovery codes (how many are left; a new set) and the
 * passkeys (add one, with the page script; remove one). Every change but turning the app on asks for the password
 * or a current code (`proof`). Plain forms with CSRF tokens: everything but adding a passkey works without
 * JavaScript (docs/protocol-decisions.md "Second factors and passkeys").
 */
import type { ComponentChildren } from 'preact';
import { CopyableValue, CsrfField, Field } from '../components/field.js';
import { Notice } from '../components/notice.js';
import { Layout } from '../layout.js';
import { asPage, useBrandName, useI18n } from '../page-context.js';
import { PasskeyStatus } from '../components/passkey-status.js';

export const TWO_STEP_NOTICES = {
  'app-removed': 'twoStepSettings.notice.appRemoved',
  'passkey-added': 'twoStepSettings.notice.passkeyAdded',
  'passkey-removed': 'twoStepSettings.notice.passkeyRemoved',
} as const;
export type TwoStepNotice = keyof typeof TWO_STEP_NOTICES;

export type TwoStepField = 'code' | 'removeProof' | 'regenerateProof' | 'removePasskeyProof';
/** What went wrong in a field, as a message of the catalogue (told in the page's language). */
export type TwoStepProblem = 'twoStepSettings.proof.wrong' | 'twoStepSettings.proof.throttled' | 'twoStepSettings.app.wrongCode' | 'twoStepSettings.app.expired';

export interface TwoStepPageProps {
  csrfToken: string;
  /** The app in use, or null (then `enrolment` is shown). */
  app: { createdAt: Date; lastUsedAt: Date | null } | null;
  /** A new secret to set up, when there is no app yet. */
  enrolment: { sealed: string; secretGrouped: string; qrDataUri: string; accountName: string } | null;
  recoveryCodesLeft: number;
  /** Registered passkeys, oldest first. */
  passkeys: { credentialId: string; name: string; createdAt: Date; lastUsedAt: Date | null; synced: boolean }[];
  notice?: TwoStepNotice | undefined;
  errors?: Partial<Record<TwoStepField, TwoStepProblem>>;
  /** The passkey whose remove form `errors.removePasskeyProof` belongs to. */
  removingPasskey?: string | undefined;
}

/** A form asking for the password or a current code before a change (docs/protocol-decisions.md). */
function ProofForm(props: {
  action: string;
  csrfToken: string;
  id: string;
  error: string | undefined;
  button: string;
  /** A fuller name for the button where several share its text (a Remove for each passkey). */
  buttonLabel?: string;
  class?: string;
  children?: ComponentChildren;
}) {
  const { t } = useI18n();
  return (
    <form method="post" action={props.action} class={props.class} novalidate>
      <CsrfField token={props.csrfToken} />
      {props.children}
      <Field
        id={props.id}
        name="proof"
        type="password"
        label={t('twoStepSettings.proof')}
        autocomplete="current-password"
        required
        error={props.error}
      />
      <div class="actions">
        <button type="submit" class="secondary" aria-label={props.buttonLabel}>
          {props.button}
        </button>
      </div>
    </form>
  );
}

export const TwoStepPage = asPage(function TwoStepPage(props: TwoStepPageProps) {
  const { t, rich, dateTime } = useI18n();
  const brand = useBrandName();
  const errors = Object.fromEntries(Object.entries(props.errors ?? {}).map(([field, key]) => [field, t(key)])) as Partial<Record<TwoStepField, string>>;
  return (
    <Layout title={t('twoStepSettings.title')} signedIn current="account">
      <h1>{t('twoStepSettings.title')}</h1>
      <p class="lead">{t('twoStepSettings.lead', { brand })}</p>
      <Notice>{props.notice && t(TWO_STEP_NOTICES[props.notice])}</Notice>
      <section class="card" aria-labelledby="app-heading">
        <h2 id="app-heading">{t('twoStepSettings.app')}</h2>
        {props.app ? (
          <>
            <p>
              <span class="badge ok">{t('twoStepSettings.on')}</span>{' '}
              {props.app.lastUsedAt
                ? t('twoStepSettings.app.addedUsed', { added: dateTime(props.app.createdAt), used: dateTime(props.app.lastUsedAt) })
                : t('twoStepSettings.app.added', { added: dateTime(props.app.createdAt) })}
            </p>
            <ProofForm action="/account/two-step/app/remove" csrfToken={props.csrfToken} id="remove-proof" error={errors.removeProof} button={t('twoStepSettings.app.remove')}>
              <p class="hint">{t('twoStepSettings.app.removeHint')}</p>
            </ProofForm>
          </>
        ) : props.enrolment ? (
          <>
            <p>
              <span class="badge warn">{t('twoStepSettings.off')}</span> {t('twoStepSettings.app.steps')}
            </p>
            <ol>
              <li>{t('twoStepSettings.app.step1')}</li>
              <li>{t('twoStepSettings.app.step2')}</li>
              <li>{t('twoStepSettings.app.step3')}</li>
            </ol>
            <img class="qr" src={props.enrolment.qrDataUri} width={200} height={200} alt={t('twoStepSettings.app.qr', { brand, account: props.enrolment.accountName })} />
            <label for="totp-secret">{t('twoStepSettings.app.key')}</label>
            <CopyableValue id="totp-secret" value={props.enrolment.secretGrouped} label={t('twoStepSettings.app.keyShort')} />
            <form method="post" action="/account/two-step/app" novalidate>
              <CsrfField token={props.csrfToken} />
              <input type="hidden" name="enrolment" value={props.enrolment.sealed} />
              <Field id="code" name="code" label={t('twoStepSettings.app.code')} autocomplete="one-time-code" inputmode="numeric" required error={errors.code} spellcheck={false} />
              <div class="actions">
                <button type="submit">{t('twoStepSettings.app.turnOn')}</button>
              </div>
            </form>
          </>
        ) : null}
      </section>
      <section class="card" aria-labelledby="recovery-heading">
        <h2 id="recovery-heading">{t('twoStepSettings.recovery')}</h2>
        {props.app ? (
          <>
            <p>
              {t('twoStepSettings.recovery.lead')} <strong>{t('twoStepSettings.recovery.left', { count: props.recoveryCodesLeft })}</strong>
            </p>
            <ProofForm action="/account/two-step/recovery-codes" csrfToken={props.csrfToken} id="regenerate-proof" error={errors.regenerateProof} button={t('twoStepSettings.recovery.new')}>
              <p class="hint">{t('twoStepSettings.recovery.newHint')}</p>
            </ProofForm>
          </>
        ) : (
          <p>{t('twoStepSettings.recovery.none')}</p>
        )}
      </section>
      <section class="card" aria-labelledby="passkeys-heading">
        <h2 id="passkeys-heading">{t('twoStepSettings.passkeys')}</h2>
        <p>{t('twoStepSettings.passkeys.lead', { brand })}</p>
        {props.passkeys.length > 0 ? (
          <ul class="plain">
            {props.passkeys.map((passkey, index) => (
              <li>
                <div>
                  <strong>{passkey.name}</strong> <span class="badge">{passkey.synced ? t('twoStepSettings.passkeys.synced') : t('twoStepSettings.passkeys.thisDevice')}</span>
                  <p class="hint">
                    {passkey.lastUsedAt
                      ? t('twoStepSettings.passkeys.addedUsed', { added: dateTime(passkey.createdAt), used: dateTime(passkey.lastUsedAt) })
                      : t('twoStepSettings.passkeys.addedUnused', { added: dateTime(passkey.createdAt) })}
                  </p>
                </div>
                <ProofForm
                  action="/account/passkeys/remove"
                  csrfToken={props.csrfToken}
                  id={`remove-passkey-proof-${index + 1}`}
                  error={props.removingPasskey === passkey.credentialId ? errors.removePasskeyProof : undefined}
                  button={t('twoStepSettings.passkeys.remove')}
                  buttonLabel={t('twoStepSettings.passkeys.removeNamed', { name: passkey.name })}
                  class="passkey-remove"
                >
                  <input type="hidden" name="credential_id" value={passkey.credentialId} />
                </ProofForm>
              </li>
            ))}
          </ul>
        ) : (
          <p class="hint">{t('twoStepSettings.passkeys.none')}</p>
        )}
        <div class="field">
          <label for="passkey-name">{t('twoStepSettings.passkeys.name')}</label>
          <p class="hint" id="passkey-name-hint">
            {t('twoStepSettings.passkeys.nameHint')}
          </p>
          <input id="passkey-name" type="text" maxLength={60} aria-describedby="passkey-name-hint" />
        </div>
        {/* Sent with the request for the options (views/passkey-script.ts), which shows a refusal's reason beside it. */}
        <Field id="add-passkey-proof" name="proof" type="password" label={t('twoStepSettings.proof')} autocomplete="current-password" required />
        <div class="actions">
          <button
            type="button"
            data-passkey="register"
            data-action="/account/passkeys"
            data-name-input="passkey-name"
            data-proof-input="add-passkey-proof"
            data-say-proof-wrong={t('twoStepSettings.proof.wrong')}
            data-say-proof-throttled={t('twoStepSettings.proof.throttled')}
            data-status="passkey-status"
            hidden
          >
            {t('twoStepSettings.passkeys.add')}
          </button>
        </div>
        <PasskeyStatus>{t('twoStepSettings.passkeys.needsJs')}</PasskeyStatus>
      </section>
      <script src="/assets/passkeys.js" defer />
      <p>
        <a href="/account">{t('twoStepSettings.back')}</a>
      </p>
    </Layout>
  );
});
