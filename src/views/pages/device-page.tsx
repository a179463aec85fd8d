/**
 * The /device pages (RFC 8628 §3.3): where a signed-in person types the code their device shows, and what they
 * see once they have decided. The consent step in between is the consent page (consent-page.tsx, `device`).
 */
import { CsrfField, Field } from '../components/field.js';
import { Layout } from '../layout.js';
import { MessagePage } from './message-page.js';
import { asPage, useI18n } from '../page-context.js';

export interface DeviceCodePageProps {
  csrfToken: string;
  userEmail: string;
  /** What is in the field: from verification_uri_complete, or what was typed before an error. */
  userCode?: string;
  /** The code came filled in from a link or QR code: the person should compare it with the device (§3.3.1). */
  prefilled?: boolean;
  error?: string;
}

export const DeviceCodePage = asPage(function DeviceCodePage({ csrfToken, userEmail, userCode, prefilled, error }: DeviceCodePageProps) {
  const { t, rich } = useI18n();
  return (
    <Layout title={t('device.title')} signedIn inFlow>
      <div class="card">
        <h1>{t('device.title')}</h1>
        <p>{rich('device.lead', { email: <strong>{userEmail}</strong> })}</p>
        <form method="post" action="/device" novalidate>
          <CsrfField token={csrfToken} />
          <Field
            id="user-code"
            name="user_code"
            label={t('device.code')}
            hint={prefilled ? t('device.hint.prefilled') : t('device.hint.typed')}
            autocomplete="off"
            spellcheck={false}
            required
            value={userCode}
            error={error}
            autofocus
          />
          <div class="actions">
            <button type="submit">{t('device.continue')}</button>
          </div>
        </form>
        <p class="hint">{t('device.warning')}</p>
      </div>
    </Layout>
  );
});

/** After "Allow": the device picks its tokens up on its next poll. */
export const DeviceApprovedPage = asPage(function DeviceApprovedPage({ clientName }: { clientName: string }) {
  const { t, rich } = useI18n();
  return (
    <MessagePage title={t('device.approved.title')} tone="ok" signedIn>
      <p>{rich('device.approved.text', { app: <strong>{clientName}</strong> })}</p>
      <p class="hint">{rich('device.approved.remove', { accountPage: <a href="/account">{t('device.approved.accountPage')}</a> })}</p>
    </MessagePage>
  );
});

/** After "Deny". */
export const DeviceDeniedPage = asPage(function DeviceDeniedPage({ clientName }: { clientName: string }) {
  const { t, rich } = useI18n();
  return (
    <MessagePage title={t('device.denied.title')} signedIn>
      <p>{rich('device.denied.text', { app: <strong>{clientName}</strong> })}</p>
    </MessagePage>
  );
});
