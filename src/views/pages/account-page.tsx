import { CsrfField, Field } from '../components/field.js';
import { Notice } from '../components/notice.js';
import { LocalOutboxHint } from './forgot-password-page.js';
import { PostButton } from '../components/post-button.js';
import { describeScopes, describeUserAgent, formatTime } from '../format.js';
import { Layout } from '../layout.js';

export interface AccountSessionView {
  id: string;
  isCurrent: boolean;
  userAgent: string | null;
  ipAddress: string | null;
  createdAt: Date;
  lastSeenAt: Date;
}

export interface ConnectedAppView {
  clientId: string;
  name: string;
  homepageUrl: string | null;
  logoUrl: string | null;
  scope: string[];
  grantedAt: Date;
  /** When the app last received tokens (a sign-in or a refresh), to the minute; null if it never has. */
  lastUsedAt: Date | null;
}

/** One line of "Recent activity": something that happened to the account, in words, with where from. */
export interface AccountActivityView {
  at: Date;
  what: string;
  userAgent: string | null;
  ipAddress: string | null;
}

/** What the account page confirms after a redirect, chosen by its key (`?notice=profile-saved`): no text comes from the URL. */
export const ACCOUNT_NOTICES = {
  welcome: 'Welcome to Latch. We sent you a mail: open its link to confirm your email address.',
  'profile-saved': 'Your profile was saved.',
  'avatar-uploaded': 'Your new avatar is in place.',
  'avatar-removed': 'Your avatar was removed.',
  'password-changed': 'Your password was changed, and your other sessions were signed out.',
  'session-ended': 'That session was signed out.',
  'access-removed': 'Access removed: the app can no longer use your account, and its tokens stopped working.',
  'verification-sent': 'We sent a new confirmation link to your email address.',
  'verification-limit': 'We already sent several links in the last hour. Check your inbox and spam folder, or try again later.',
} as const;
export type AccountNotice = keyof typeof ACCOUNT_NOTICES;

export type AccountField = 'name' | 'avatarUrl' | 'avatarFile' | 'currentPassword' | 'newPassword';

export interface AccountPageProps {
  csrfToken: string;
  user: { name: string; email: string; emailVerified: boolean; avatarUrl: string | null };
  usesUploadedAvatar: boolean;
  /** Shown in the password field's hint; the rule itself is checked by the route. */
  passwordMinLength: number;
  notice?: AccountNotice | undefined;
  /** This Latch keeps its mail in the development outbox (/dev/outbox) instead of sending it. */
  localOutbox?: boolean;
  errors: Partial<Record<AccountField, string>>;
  values: { name?: string; avatarUrl?: string };
  sessions: AccountSessionView[];
  apps: ConnectedAppView[];
  /** The person's own recent sign-ins and changes, newest first (audit events). */
  activity: AccountActivityView[];
  /** Whether the account has an authenticator app (two-step verification on). */
  twoStepOn?: boolean;
}

function Avatar({ url, name }: { url: string | null; name: string }) {
  // alt="": the name is written right beside it.
  return url ? <img class="avatar" src={url} alt="" width={64} height={64} /> : <span class="avatar placeholder" aria-hidden="true">{name.trim().charAt(0).toUpperCase() || '?'}</span>;
}

export function AccountPage(props: AccountPageProps) {
  const { user, errors, csrfToken } = props;
  return (
    <Layout title="Your account" signedIn current="account">
      <Notice>{props.notice && ACCOUNT_NOTICES[props.notice]}</Notice>

      <section class="card" aria-labelledby="profile-heading">
        <div class="profile">
          <Avatar url={user.avatarUrl} name={user.name} />
          <div>
            <h1 id="profile-heading">{user.name}</h1>
            <p class="muted">
              {user.email}{' '}
              {user.emailVerified ? <span class="badge ok">verified</span> : <span class="badge warn">not verified</span>}
            </p>
          </div>
        </div>
        {!user.emailVerified ? (
          <form method="post" action="/account/verification-email" class="inline-form">
            <CsrfField token={csrfToken} />
            <p class="hint">
              Confirm your email address with the link we sent you. No mail?{' '}
              <button type="submit" class="secondary">
                Send a new link
              </button>
            </p>
            {props.localOutbox ? <LocalOutboxHint /> : null}
          </form>
        ) : null}

        <h2>Profile</h2>
        <form method="post" action="/account/profile" novalidate>
          <CsrfField token={csrfToken} />
          <Field id="name" name="name" label="Name" autocomplete="name" required value={props.values.name ?? user.name} error={errors.name} />
          <Field
            id="avatar_url"
            name="avatar_url"
            label="Avatar URL"
            type="url"
            value={props.values.avatarUrl ?? (props.usesUploadedAvatar ? '' : (user.avatarUrl ?? ''))}
            error={errors.avatarUrl}
            hint={
              props.usesUploadedAvatar
                ? 'You are using an uploaded image. Enter an https:// address to use another picture instead.'
                : 'An https:// address of a picture of you, or upload one below. Leave empty for none.'
            }
          />
          <div class="actions">
            <button type="submit">Save profile</button>
          </div>
        </form>

        <form method="post" action="/account/avatar" enctype="multipart/form-data">
          <CsrfField token={csrfToken} />
          <Field id="avatar_file" name="avatar" label="Upload an avatar image" type="file" accept="image/png,image/jpeg,image/gif,image/webp" hint="PNG, JPEG, GIF or WebP, at most 1 MB." error={errors.avatarFile} />
          <div class="actions">
            <button type="submit" class="secondary">
              Upload image
            </button>
          </div>
        </form>
        {user.avatarUrl ? <PostButton action="/account/avatar/remove" csrfToken={csrfToken} label="Remove avatar" /> : null}
      </section>

      <section class="card" aria-labelledby="password-heading">
        <h2 id="password-heading">Password</h2>
        <form method="post" action="/account/password" novalidate>
          <CsrfField token={csrfToken} />
          <input type="hidden" name="username" value={user.email} autocomplete="username" />
          <Field id="current_password" name="current_password" label="Current password" type="password" autocomplete="current-password" required error={errors.currentPassword} />
          <Field
            id="new_password"
            name="new_password"
            label="New password"
            type="password"
            autocomplete="new-password"
            required
            error={errors.newPassword}
            hint={`At least ${props.passwordMinLength} characters. Changing your password signs out all your other sessions.`}
          />
          <div class="actions">
            <button type="submit">Change password</button>
          </div>
        </form>
      </section>

      <section class="card" aria-labelledby="two-step-heading">
        <h2 id="two-step-heading">Two-step verification</h2>
        <p>
          {props.twoStepOn ? <span class="badge ok">On</span> : <span class="badge warn">Off</span>}{' '}
          {props.twoStepOn ? 'Signing in with your password also asks for your authenticator app or a passkey.' : 'Signing in needs only your password.'}
        </p>
        <p>
          <a href="/account/two-step">{props.twoStepOn ? 'Manage two-step verification' : 'Set up two-step verification'}</a>
        </p>
      </section>

      <section class="card" aria-labelledby="sessions-heading">
        <h2 id="sessions-heading">Where you are signed in</h2>
        <ul class="plain">
          {props.sessions.map((session) => (
            <li>
              <div>
                <strong>{describeUserAgent(session.userAgent)}</strong> {session.isCurrent ? <span class="badge ok">this browser</span> : null}
                <br />
                <span class="muted">
                  {session.ipAddress ?? 'unknown address'} · signed in {formatTime(session.createdAt)} · last active {formatTime(session.lastSeenAt)}
                </span>
              </div>
              {session.isCurrent ? null : (
                <PostButton
                  action="/account/sessions/end"
                  csrfToken={csrfToken}
                  label="Sign out"
                  ariaLabel={`Sign out ${describeUserAgent(session.userAgent)}, signed in ${formatTime(session.createdAt)}`}
                  fields={{ session: session.id }}
                  inline
                />
              )}
            </li>
          ))}
        </ul>
        <PostButton action="/account/sessions/end-all" csrfToken={csrfToken} label="Sign out everywhere">
          <p class="muted">Sign out of Latch in every browser and device listed here, this one included.</p>
        </PostButton>
      </section>

      <section class="card" aria-labelledby="activity-heading">
        <h2 id="activity-heading">Recent activity</h2>
        {props.activity.length === 0 ? (
          <p class="muted">Nothing yet.</p>
        ) : (
          // On a narrow screen the table scrolls sideways: focusable so that a keyboard can scroll it (WCAG 2.1.1),
          // a group named by the heading so that a screen reader says what it entered.
          <div class="table-scroll" tabIndex={0} role="group" aria-labelledby="activity-heading">
            <table>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">What</th>
                  <th scope="col">Browser</th>
                  <th scope="col">Address</th>
                </tr>
              </thead>
              <tbody>
                {props.activity.map((item) => (
                  <tr>
                    <td>{formatTime(item.at)}</td>
                    <td>{item.what}</td>
                    <td>{item.userAgent === null ? '—' : describeUserAgent(item.userAgent)}</td>
                    <td>{item.ipAddress ?? '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <p class="muted">If you do not recognise something here, change your password and sign out everywhere.</p>
      </section>

      <section class="card" aria-labelledby="apps-heading">
        <h2 id="apps-heading">Connected apps</h2>
        {props.apps.length === 0 ? (
          <p class="muted">You have not allowed any app to use your Latch account.</p>
        ) : (
          <ul class="plain">
            {props.apps.map((app) => (
              <li>
                <div>
                  {app.logoUrl ? <img class="logo" src={app.logoUrl} alt="" width={40} height={40} /> : null}
                  <strong>{app.name}</strong>
                  {app.homepageUrl ? (
                    <>
                      {' '}
                      <a href={app.homepageUrl} rel="noopener noreferrer">
                        {new URL(app.homepageUrl).host}
                      </a>
                    </>
                  ) : null}
                  <br />
                  <span class="muted">
                    Can see: {describeScopes(app.scope).join('; ')}. Allowed {formatTime(app.grantedAt)}.{' '}
                    {app.lastUsedAt ? `Last used ${formatTime(app.lastUsedAt)}.` : 'Not used yet.'}
                  </span>
                </div>
                <PostButton
                  action="/account/apps/remove"
                  csrfToken={csrfToken}
                  label="Remove access"
                  ariaLabel={`Remove access for ${app.name}`}
                  fields={{ client_id: app.clientId }}
                  inline
                />
              </li>
            ))}
          </ul>
        )}
      </section>

      <section class="card" aria-labelledby="signout-heading">
        <h2 id="signout-heading">Sign out</h2>
        <PostButton action="/logout" csrfToken={csrfToken} label="Sign out">
          <p class="muted">Sign out of Latch in this browser. Apps that listen for Latch's sign-out are told; others keep their own sessions.</p>
        </PostButton>
      </section>
    </Layout>
  );
}
