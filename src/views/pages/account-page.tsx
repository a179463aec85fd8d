import { CsrfField, Field } from '../components/field.js';
import { Notice } from '../components/notice.js';
import { LocalOutboxHint } from './forgot-password-page.js';
import { PostButton } from '../components/post-button.js';
import { asSentence, describeScopes, formatTime } from '../format.js';
import { Layout } from '../layout.js';
import { useBrandName } from '../page-context.js';
import { describeUserAgent, parseUserAgent } from '../user-agent.js';

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

/**
 * What the account page confirms after a redirect, chosen by its key (`?notice=profile-saved`): no text comes from
 * the URL. These are the words when the page does not know what the change was about (a reload, a shared link);
 * right after the change it names it (noticeText).
 */
export const ACCOUNT_NOTICES = {
  welcome: 'Welcome. We sent you a mail: open its link to confirm your email address.',
  'profile-saved': 'Your name was saved.',
  'avatar-uploaded': 'Your new picture is in place.',
  'avatar-saved': 'Your new picture is in place.',
  'avatar-removed': 'Your picture was removed.',
  'password-changed': 'Your password was changed, and your other sessions were signed out.',
  'session-ended': 'That session was signed out.',
  'access-removed': 'Access removed: the app can no longer use your account, and its tokens stopped working.',
  'verification-sent': 'We sent a new confirmation link to your email address.',
  'verification-limit': 'We already sent several links in the last hour. Check your inbox and spam folder, or try again later.',
} as const;
export type AccountNotice = keyof typeof ACCOUNT_NOTICES;

/** Where on the page each notice is shown: beside the form or list whose change it confirms. */
type NoticePlace = 'email' | 'name' | 'picture' | 'password' | 'sessions' | 'apps';
const NOTICE_PLACES: Record<AccountNotice, NoticePlace> = {
  welcome: 'email',
  'verification-sent': 'email',
  'verification-limit': 'email',
  'profile-saved': 'name',
  'avatar-uploaded': 'picture',
  'avatar-saved': 'picture',
  'avatar-removed': 'picture',
  'password-changed': 'password',
  'session-ended': 'sessions',
  'access-removed': 'apps',
};

/** The section each notice belongs to, as the fragment of the redirect after the change (`/account?notice=…#apps`). */
export const NOTICE_SECTIONS: Record<AccountNotice, string> = {
  welcome: 'profile',
  'verification-sent': 'profile',
  'verification-limit': 'profile',
  'profile-saved': 'profile',
  'avatar-uploaded': 'profile',
  'avatar-saved': 'profile',
  'avatar-removed': 'profile',
  'password-changed': 'password',
  'session-ended': 'sessions',
  'access-removed': 'apps',
};

export type AccountField = 'name' | 'avatarUrl' | 'avatarFile' | 'currentPassword' | 'newPassword';

export interface AccountPageProps {
  csrfToken: string;
  user: { name: string; email: string; emailVerified: boolean; avatarUrl: string | null };
  usesUploadedAvatar: boolean;
  /** Shown in the password field's hint; the rule itself is checked by the route. */
  passwordMinLength: number;
  notice?: AccountNotice | undefined;
  /**
   * What the change was about, set by the route that made it (a one-minute cookie, never the URL): the app whose
   * access was removed, the device signed out. The notice names it.
   */
  noticeSubject?: string | undefined;
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
  /** The second factors enrolled: an authenticator app, and how many passkeys. */
  factors?: { authenticatorApp: boolean; passkeys: number };
}

/** The notice's words: naming what changed when the route said so. */
export function noticeText(notice: AccountNotice, subject: string | undefined, user: AccountPageProps['user'], brandName: string): string {
  switch (notice) {
    case 'welcome':
      return `Welcome to ${brandName}. We sent you a mail: open its link to confirm your email address.`;
    case 'profile-saved':
      return `Your name is now ${user.name}.`;
    case 'avatar-saved':
      return user.avatarUrl ? `Your picture now comes from ${safeHost(user.avatarUrl)}.` : ACCOUNT_NOTICES[notice];
    case 'session-ended':
      return subject ? `Signed out ${subject}. That device must sign in again to use your account.` : ACCOUNT_NOTICES[notice];
    case 'access-removed':
      return subject ? `${subject} can no longer access your account, and the tokens it held stopped working.` : ACCOUNT_NOTICES[notice];
    default:
      return ACCOUNT_NOTICES[notice];
  }
}

function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'another site';
  }
}

/** "Firefox 133 on Windows, 203.0.113.5": how a session is named in buttons and notices. */
export function describeSession(session: Pick<AccountSessionView, 'userAgent' | 'ipAddress'>): string {
  return session.ipAddress ? `${describeUserAgent(session.userAgent)}, ${session.ipAddress}` : describeUserAgent(session.userAgent);
}

function Avatar({ url, name }: { url: string | null; name: string }) {
  // alt="": the name is written right beside it.
  return url ? <img class="avatar" src={url} alt="" width={64} height={64} /> : <span class="avatar placeholder" aria-hidden="true">{name.trim().charAt(0).toUpperCase() || '?'}</span>;
}

function SessionItem({ session, csrfToken }: { session: AccountSessionView; csrfToken: string }) {
  const { browser, system } = parseUserAgent(session.userAgent);
  const name = browser ?? (system ? null : describeUserAgent(session.userAgent));
  return (
    <li>
      <div>
        <strong>{name ?? 'Unknown browser'}</strong>
        {system ? ` on ${system}` : null} {session.isCurrent ? <span class="badge ok">This device</span> : null}
        <br />
        <span class="muted">
          {session.ipAddress ?? 'Unknown address'} · last active {formatTime(session.lastSeenAt)} · signed in {formatTime(session.createdAt)}
        </span>
      </div>
      {session.isCurrent ? (
        // This browser signs out through the OIDC logout endpoint, which also tells the apps that listen.
        <PostButton action="/logout" csrfToken={csrfToken} label="Sign out this device" inline />
      ) : (
        <PostButton action="/account/sessions/end" csrfToken={csrfToken} label="Sign out" ariaLabel={`Sign out ${describeSession(session)}`} fields={{ session: session.id }} inline />
      )}
    </li>
  );
}

/** The page; routes call it as a function, so the part that reads the page context (a hook) is a component of its own. */
export function AccountPage(props: AccountPageProps) {
  return <AccountPageContent {...props} />;
}

function AccountPageContent(props: AccountPageProps) {
  const { user, csrfToken } = props;
  // Field errors are told as sentences, whatever rule module wrote them (issue 19 item 2).
  const errors = Object.fromEntries(Object.entries(props.errors).map(([field, message]) => [field, message && asSentence(message)])) as AccountPageProps['errors'];
  const brandName = useBrandName();
  const noticeAt = (place: NoticePlace) =>
    props.notice && NOTICE_PLACES[props.notice] === place ? <Notice>{noticeText(props.notice, props.noticeSubject, user, brandName)}</Notice> : null;
  const factors = props.factors ?? { authenticatorApp: false, passkeys: 0 };
  const twoStepOn = props.twoStepOn ?? (factors.authenticatorApp || factors.passkeys > 0);
  return (
    <Layout title="Your account" signedIn current="account" wide>
      <h1 class="page-title">Your account</h1>
      <nav class="section-nav" aria-label="Account sections">
        <a href="#profile">Profile</a>
        <a href="#security">Security</a>
        <a href="#apps">Connected apps</a>
        <a href="#activity">Recent activity</a>
      </nav>

      <section class="card" id="profile" aria-labelledby="profile-heading">
        <h2 id="profile-heading">Profile</h2>
        <div class="profile">
          <Avatar url={user.avatarUrl} name={user.name} />
          <div>
            <p class="profile-name">{user.name}</p>
            <p class="muted">
              {user.email}{' '}
              {user.emailVerified ? <span class="badge ok">verified</span> : <span class="badge warn">not verified</span>}
            </p>
          </div>
        </div>
        {noticeAt('email')}
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

        <form method="post" action="/account/profile" novalidate class="subsection">
          <CsrfField token={csrfToken} />
          <Field id="name" name="name" label="Name" autocomplete="name" required value={props.values.name ?? user.name} error={errors.name} hint="Apps you sign in to see this name." />
          {noticeAt('name')}
          <div class="actions">
            <button type="submit">Save name</button>
          </div>
        </form>

        {/* One form for the picture: a file to upload, or the address of one, or removing it (the button says which). */}
        <form method="post" action="/account/avatar" enctype="multipart/form-data" novalidate class="subsection">
          <CsrfField token={csrfToken} />
          <fieldset>
            <legend>Picture</legend>
            <Field id="avatar_file" name="avatar" label="Upload an avatar image" type="file" accept="image/png,image/jpeg,image/gif,image/webp" hint="PNG, JPEG, GIF or WebP, at most 1 MB." error={errors.avatarFile} />
            <Field
              id="avatar_url"
              name="avatar_url"
              label="Or the address of a picture"
              type="url"
              value={props.values.avatarUrl ?? (props.usesUploadedAvatar ? '' : (user.avatarUrl ?? ''))}
              error={errors.avatarUrl}
              hint={props.usesUploadedAvatar ? 'You are using an uploaded image.' : 'An https:// address of a picture of you.'}
            />
          </fieldset>
          {noticeAt('picture')}
          <div class="actions">
            <button type="submit" name="action" value="save">
              Save picture
            </button>
            {user.avatarUrl ? (
              <button type="submit" name="action" value="remove" class="secondary">
                Remove picture
              </button>
            ) : null}
          </div>
        </form>
      </section>

      <section class="card" id="security" aria-labelledby="security-heading">
        <h2 id="security-heading">Security</h2>

        <section id="password" aria-labelledby="password-heading" class="subsection">
          <h3 id="password-heading">Password</h3>
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
            {noticeAt('password')}
            <div class="actions">
              <button type="submit">Change password</button>
            </div>
          </form>
        </section>

        <section id="two-step" aria-labelledby="two-step-heading" class="subsection">
          <h3 id="two-step-heading">Two-step verification</h3>
          <p>
            {twoStepOn ? <span class="badge ok">On</span> : <span class="badge warn">Off</span>}{' '}
            {twoStepOn ? 'Signing in with your password also asks for your authenticator app or a passkey.' : 'Signing in needs only your password.'}
          </p>
          <ul class="facts">
            <li>Authenticator app: {factors.authenticatorApp ? 'set up' : 'none'}</li>
            <li>Passkeys: {factors.passkeys === 0 ? 'none' : factors.passkeys === 1 ? 'one' : factors.passkeys}</li>
          </ul>
          <p>
            <a href="/account/two-step">{twoStepOn ? 'Manage two-step verification and passkeys' : 'Set up two-step verification or a passkey'}</a>
          </p>
        </section>

        <section id="sessions" aria-labelledby="sessions-heading" class="subsection">
          <h3 id="sessions-heading">Where you are signed in</h3>
          {noticeAt('sessions')}
          <ul class="plain">
            {props.sessions.map((session) => (
              <SessionItem session={session} csrfToken={csrfToken} />
            ))}
          </ul>
          <PostButton action="/account/sessions/end-all" csrfToken={csrfToken} label="Sign out everywhere">
            <p class="muted">Sign out of {brandName} on every device listed here, this one included. Apps that listen for the sign-out are told; others keep their own sessions.</p>
          </PostButton>
        </section>
      </section>

      <section class="card" id="apps" aria-labelledby="apps-heading">
        <h2 id="apps-heading">Connected apps</h2>
        {noticeAt('apps')}
        {props.apps.length === 0 ? (
          <p class="muted">You have not allowed any app to use your {brandName} account.</p>
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
                    Can see: {describeScopes(app.scope, brandName).join('; ')}. Allowed {formatTime(app.grantedAt)}.{' '}
                    {app.lastUsedAt ? `Last used ${formatTime(app.lastUsedAt)}.` : 'Not used yet.'}
                  </span>
                </div>
                <PostButton action="/account/apps/remove" csrfToken={csrfToken} label="Remove access" ariaLabel={`Remove access for ${app.name}`} fields={{ client_id: app.clientId }} inline />
              </li>
            ))}
          </ul>
        )}
      </section>

      <section class="card" id="activity" aria-labelledby="activity-heading">
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
    </Layout>
  );
}
