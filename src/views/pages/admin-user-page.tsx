/**
 * One account in the admin console: who it is, its state, and what an administrator can do to it (disable or
 * enable, sign out everywhere, send the confirmation mail again, reset second factors, delete). Every action is
 * its own small form with the CSRF token; the result is shown after a redirect (post/redirect/get).
 */
import { AdminLayout } from '../components/admin-nav.js';
import { CsrfField } from '../components/field.js';
import { Notice } from '../components/notice.js';
import { PostButton } from '../components/post-button.js';
import { asPage, useI18n } from '../page-context.js';
import { EventTable, type AdminEventRow } from './admin-events-page.js';
import { UserBadges } from './admin-users-page.js';

export const ADMIN_USER_NOTICES = {
  disabled: 'admin.user.notice.disabled',
  enabled: 'admin.user.notice.enabled',
  'signed-out': 'admin.user.notice.signedOut',
  'verification-sent': 'admin.user.notice.verificationSent',
  'factors-reset': 'admin.user.notice.factorsReset',
} as const;
export type AdminUserNotice = keyof typeof ADMIN_USER_NOTICES;

export interface AdminUserView {
  id: number;
  email: string;
  name: string;
  emailVerified: boolean;
  isAdmin: boolean;
  disabledAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface AdminUserPageProps {
  csrfToken: string;
  user: AdminUserView;
  /** The administrator is looking at their own account: it cannot be disabled or deleted from here. */
  isSelf: boolean;
  factors: { authenticatorApp: boolean; recoveryCodesLeft: number; passkeys: number };
  activeSessions: number;
  apps: { clientId: string; name: string }[];
  ownedClients: { clientId: string; name: string }[];
  events: AdminEventRow[];
  notice?: AdminUserNotice | undefined;
  /** A refused action, in words (shown with a 400). */
  error?: string | undefined;
  deleteError?: string | undefined;
}

export const AdminUserPage = asPage(function AdminUserPage(props: AdminUserPageProps) {
  const { t, rich, dateTime } = useI18n();
  const { user, csrfToken } = props;
  const base = `/admin/users/${user.id}`;
  const hasFactors = props.factors.authenticatorApp || props.factors.passkeys > 0 || props.factors.recoveryCodesLeft > 0;
  return (
    <AdminLayout title={user.email} section="users">
      <p>
        <a href="/admin/users">{t('admin.user.allUsers')}</a>
      </p>
      <Notice>{props.notice && t(ADMIN_USER_NOTICES[props.notice])}</Notice>
      {props.error ? (
        <p class="alert error" role="alert">
          {props.error}
        </p>
      ) : null}
      <section class="card" aria-labelledby="user-heading">
        <h1 id="user-heading">{user.name}</h1>
        <p>
          <UserBadges user={{ ...user, disabled: user.disabledAt !== null }} />
        </p>
        <dl class="facts">
          <dt>{t('admin.user.email')}</dt>
          <dd>{user.email}</dd>
          <dt>{t('admin.user.number')}</dt>
          <dd>{user.id}</dd>
          <dt>{t('admin.created')}</dt>
          <dd>{dateTime(user.createdAt)}</dd>
          <dt>{t('admin.lastChanged')}</dt>
          <dd>{dateTime(user.updatedAt)}</dd>
          {user.disabledAt ? (
            <>
              <dt>{t('admin.user.disabledAt')}</dt>
              <dd>{dateTime(user.disabledAt)}</dd>
            </>
          ) : null}
          <dt>{t('admin.user.signedInNow')}</dt>
          <dd>{props.activeSessions === 0 ? t('admin.user.noSession') : t('admin.user.sessions', { count: props.activeSessions })}</dd>
          <dt>{t('admin.user.twoStep')}</dt>
          <dd>
            {hasFactors
              ? [
                  props.factors.authenticatorApp ? t('admin.user.factor.app') : null,
                  props.factors.passkeys > 0 ? t('admin.user.factor.passkeys', { count: props.factors.passkeys }) : null,
                  t('admin.user.factor.codes', { count: props.factors.recoveryCodesLeft }),
                ]
                  .filter(Boolean)
                  .join(', ')
              : t('admin.user.off')}
          </dd>
          <dt>{t('admin.user.appsAllowed')}</dt>
          <dd>
            {props.apps.length === 0
              ? t('admin.none')
              : props.apps.map((app, i) => (
                  <>
                    {i > 0 ? ', ' : ''}
                    <a href={`/admin/clients/${encodeURIComponent(app.clientId)}`}>{app.name}</a>
                  </>
                ))}
          </dd>
          <dt>{t('admin.user.appsRegistered')}</dt>
          <dd>
            {props.ownedClients.length === 0
              ? t('admin.none')
              : props.ownedClients.map((app, i) => (
                  <>
                    {i > 0 ? ', ' : ''}
                    <a href={`/admin/clients/${encodeURIComponent(app.clientId)}`}>{app.name}</a>
                  </>
                ))}
          </dd>
        </dl>
      </section>

      <section class="card" aria-labelledby="actions-heading">
        <h2 id="actions-heading">{t('admin.user.actions')}</h2>
        {props.isSelf ? <p class="muted">{t('admin.user.self')}</p> : null}
        {props.isSelf ? null : user.disabledAt ? (
          <PostButton action={`${base}/enable`} csrfToken={csrfToken} label={t('admin.user.enable')} variant="primary">
            <p>{t('admin.user.enableHint')}</p>
          </PostButton>
        ) : (
          <PostButton action={`${base}/disable`} csrfToken={csrfToken} label={t('admin.user.disable')} variant="primary">
            <p>{t('admin.user.disableHint')}</p>
          </PostButton>
        )}
        <PostButton action={`${base}/sign-out-everywhere`} csrfToken={csrfToken} label={t('admin.user.signOut')}>
          <p>{t('admin.user.signOutHint')}</p>
        </PostButton>
        {user.emailVerified ? null : (
          <PostButton action={`${base}/resend-verification`} csrfToken={csrfToken} label={t('admin.user.resend')}>
            <p>{t('admin.user.resendHint', { email: user.email })}</p>
          </PostButton>
        )}
        {hasFactors ? (
          <PostButton action={`${base}/reset-second-factors`} csrfToken={csrfToken} label={t('admin.user.reset')}>
            <p>{rich('admin.user.resetHint', { command: <code>latch user reset-mfa</code> })}</p>
          </PostButton>
        ) : null}
      </section>

      {props.isSelf ? null : (
        <section class="card danger-zone" aria-labelledby="delete-heading">
          <h2 id="delete-heading">{t('admin.user.delete')}</h2>
          <form method="post" action={`${base}/delete`} novalidate>
            <CsrfField token={csrfToken} />
            <div class={props.deleteError ? 'field has-error' : 'field'}>
              <label for="confirm_email">{t('admin.user.deleteConfirm')}</label>
              <p class="hint" id="confirm_email-hint">
                {t('admin.user.deleteHint')}
              </p>
              <input
                id="confirm_email"
                name="confirm_email"
                type="text"
                autocomplete="off"
                spellcheck={false}
                aria-describedby={props.deleteError ? 'confirm_email-hint confirm_email-error' : 'confirm_email-hint'}
                aria-invalid={props.deleteError ? 'true' : undefined}
                autofocus={!!props.deleteError}
              />
              {props.deleteError ? (
                <p class="field-error" id="confirm_email-error">
                  {props.deleteError}
                </p>
              ) : null}
            </div>
            <div class="actions">
              <button type="submit" class="danger">
                {t('admin.user.deleteButton')}
              </button>
            </div>
          </form>
        </section>
      )}

      <section class="card" aria-labelledby="user-events-heading">
        <h2 id="user-events-heading">{t('admin.recentEvents')}</h2>
        {props.events.length === 0 ? <p class="muted">{t('admin.none')}.</p> : <EventTable events={props.events} labelledBy="user-events-heading" />}
        <p>
          <a href={`/admin/events?user=${user.id}`}>{t('admin.user.allEvents')}</a>
        </p>
      </section>
    </AdminLayout>
  );
});
