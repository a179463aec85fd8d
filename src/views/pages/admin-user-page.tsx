/**
 * One account in the admin console: who it is, its state, and what an administrator can do to it (disable or
 * enable, sign out everywhere, send the confirmation mail again, reset second factors, delete). Every action is
 * its own small form with the CSRF token; the result is shown after a redirect (post/redirect/get).
 */
import { AdminLayout } from '../components/admin-nav.js';
import { CsrfField } from '../components/field.js';
import { Notice } from '../components/notice.js';
import { PostButton } from '../components/post-button.js';
import { formatTime } from '../format.js';
import { EventTable, type AdminEventRow } from './admin-events-page.js';
import { UserBadges } from './admin-users-page.js';

export const ADMIN_USER_NOTICES = {
  disabled: 'The account is disabled: it cannot sign in, its sessions ended and its tokens were revoked.',
  enabled: 'The account is enabled again: it can sign in.',
  'signed-out': 'Every session of the account ended and every token apps held for it was revoked.',
  'verification-sent': 'A new confirmation link was mailed to the account’s address.',
  'factors-reset': 'Every second factor of the account was removed: it signs in with its password alone until it adds one again.',
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

export function AdminUserPage(props: AdminUserPageProps) {
  const { user, csrfToken } = props;
  const base = `/admin/users/${user.id}`;
  const hasFactors = props.factors.authenticatorApp || props.factors.passkeys > 0 || props.factors.recoveryCodesLeft > 0;
  return (
    <AdminLayout title={user.email} section="users">
      <p>
        <a href="/admin/users">← All users</a>
      </p>
      <Notice>{props.notice && ADMIN_USER_NOTICES[props.notice]}</Notice>
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
          <dt>Email</dt>
          <dd>{user.email}</dd>
          <dt>Account number</dt>
          <dd>{user.id}</dd>
          <dt>Created</dt>
          <dd>{formatTime(user.createdAt)}</dd>
          <dt>Last changed</dt>
          <dd>{formatTime(user.updatedAt)}</dd>
          {user.disabledAt ? (
            <>
              <dt>Disabled</dt>
              <dd>{formatTime(user.disabledAt)}</dd>
            </>
          ) : null}
          <dt>Signed in now</dt>
          <dd>{props.activeSessions === 0 ? 'No active session' : `${props.activeSessions} active ${props.activeSessions === 1 ? 'session' : 'sessions'}`}</dd>
          <dt>Two-step verification</dt>
          <dd>
            {hasFactors
              ? [
                  props.factors.authenticatorApp ? 'an authenticator app' : null,
                  props.factors.passkeys > 0 ? `${props.factors.passkeys} ${props.factors.passkeys === 1 ? 'passkey' : 'passkeys'}` : null,
                  `${props.factors.recoveryCodesLeft} recovery ${props.factors.recoveryCodesLeft === 1 ? 'code' : 'codes'} left`,
                ]
                  .filter(Boolean)
                  .join(', ')
              : 'Off'}
          </dd>
          <dt>Apps it allowed</dt>
          <dd>
            {props.apps.length === 0
              ? 'None'
              : props.apps.map((app, i) => (
                  <>
                    {i > 0 ? ', ' : ''}
                    <a href={`/admin/clients/${encodeURIComponent(app.clientId)}`}>{app.name}</a>
                  </>
                ))}
          </dd>
          <dt>Apps it registered</dt>
          <dd>
            {props.ownedClients.length === 0
              ? 'None'
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
        <h2 id="actions-heading">Actions</h2>
        {props.isSelf ? <p class="muted">This is your own account: you cannot disable or delete it here.</p> : null}
        {props.isSelf ? null : user.disabledAt ? (
          <PostButton action={`${base}/enable`} csrfToken={csrfToken} label="Enable account" variant="primary">
            <p>The account can sign in again. Its ended sessions and revoked tokens stay ended.</p>
          </PostButton>
        ) : (
          <PostButton action={`${base}/disable`} csrfToken={csrfToken} label="Disable account" variant="primary">
            <p>The account can no longer sign in; its sessions end and every token apps hold for it is revoked at once.</p>
          </PostButton>
        )}
        <PostButton action={`${base}/sign-out-everywhere`} csrfToken={csrfToken} label="Sign out everywhere">
          <p>Ends every session of the account and revokes every token apps hold for it. The person can sign in again.</p>
        </PostButton>
        {user.emailVerified ? null : (
          <PostButton action={`${base}/resend-verification`} csrfToken={csrfToken} label="Send confirmation mail again">
            <p>Mails a new link that confirms {user.email}.</p>
          </PostButton>
        )}
        {hasFactors ? (
          <PostButton action={`${base}/reset-second-factors`} csrfToken={csrfToken} label="Reset two-step verification">
            <p>For a person locked out of their account: removes the authenticator app, passkeys and recovery codes (as <code>latch user reset-mfa</code> does).</p>
          </PostButton>
        ) : null}
      </section>

      {props.isSelf ? null : (
        <section class="card danger-zone" aria-labelledby="delete-heading">
          <h2 id="delete-heading">Delete this account</h2>
          <form method="post" action={`${base}/delete`} novalidate>
            <CsrfField token={csrfToken} />
            <div class={props.deleteError ? 'field has-error' : 'field'}>
              <label for="confirm_email">Type the account’s email address to confirm</label>
              <p class="hint" id="confirm_email-hint">
                Its sessions, tokens, consents and second factors are deleted with it; apps it registered stay, without an owner. This cannot be undone.
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
                Delete account
              </button>
            </div>
          </form>
        </section>
      )}

      <section class="card" aria-labelledby="user-events-heading">
        <h2 id="user-events-heading">Recent events</h2>
        {props.events.length === 0 ? <p class="muted">None.</p> : <EventTable events={props.events} labelledBy="user-events-heading" />}
        <p>
          <a href={`/admin/events?user=${user.id}`}>All events of this account</a>
        </p>
      </section>
    </AdminLayout>
  );
}
