import { PASSWORD_MIN_LENGTH } from '../../accounts/account-rules.js';
import { CsrfField, Field } from '../components/field.js';
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
}

export type AccountField = 'name' | 'avatarUrl' | 'avatarFile' | 'currentPassword' | 'newPassword';

export interface AccountPageProps {
  csrfToken: string;
  user: { name: string; email: string; emailVerified: boolean; avatarUrl: string | null };
  usesUploadedAvatar: boolean;
  notice?: string | undefined;
  errors: Partial<Record<AccountField, string>>;
  values: { name?: string; avatarUrl?: string };
  sessions: AccountSessionView[];
  apps: ConnectedAppView[];
}

function Avatar({ url, name }: { url: string | null; name: string }) {
  // alt="": the name is written right beside it.
  return url ? <img class="avatar" src={url} alt="" width={64} height={64} /> : <span class="avatar placeholder" aria-hidden="true">{name.trim().charAt(0).toUpperCase() || '?'}</span>;
}

export function AccountPage(props: AccountPageProps) {
  const { user, errors, csrfToken } = props;
  return (
    <Layout title="Your account" signedIn>
      {props.notice ? (
        <p class="alert ok" role="status">
          {props.notice}
        </p>
      ) : null}

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
        {user.avatarUrl ? (
          <form method="post" action="/account/avatar/remove">
            <CsrfField token={csrfToken} />
            <div class="actions">
              <button type="submit" class="secondary">
                Remove avatar
              </button>
            </div>
          </form>
        ) : null}
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
            hint={`At least ${PASSWORD_MIN_LENGTH} characters. Changing your password signs out all your other sessions.`}
          />
          <div class="actions">
            <button type="submit">Change password</button>
          </div>
        </form>
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
                <form method="post" action="/account/sessions/end" class="inline-form">
                  <CsrfField token={csrfToken} />
                  <input type="hidden" name="session" value={session.id} />
                  <button type="submit" class="secondary" aria-label={`Sign out ${describeUserAgent(session.userAgent)}, signed in ${formatTime(session.createdAt)}`}>
                    Sign out
                  </button>
                </form>
              )}
            </li>
          ))}
        </ul>
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
                    Can see: {describeScopes(app.scope).join('; ')}. Allowed {formatTime(app.grantedAt)}.
                  </span>
                </div>
                <form method="post" action="/account/apps/remove" class="inline-form">
                  <CsrfField token={csrfToken} />
                  <input type="hidden" name="client_id" value={app.clientId} />
                  <button type="submit" class="secondary" aria-label={`Remove access for ${app.name}`}>
                    Remove access
                  </button>
                </form>
              </li>
            ))}
          </ul>
        )}
      </section>

      <section class="card" aria-labelledby="signout-heading">
        <h2 id="signout-heading">Sign out</h2>
        <form method="post" action="/logout">
          <CsrfField token={csrfToken} />
          <p class="muted">Sign out of Latch in this browser. Apps you signed in to keep their own sessions.</p>
          <div class="actions">
            <button type="submit" class="secondary">
              Sign out
            </button>
          </div>
        </form>
      </section>
    </Layout>
  );
}
