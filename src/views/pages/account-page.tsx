import { CsrfField, Field } from '../components/field.js';
import { Notice } from '../components/notice.js';
import { PostButton } from '../components/post-button.js';
import { asSentence } from '../format.js';
import { Layout } from '../layout.js';
import { asPage, useBrandName, useI18n } from '../page-context.js';
import { describeUserAgent, parseUserAgent, type UserAgentWords } from '../user-agent.js';
import type { Translator } from '../../i18n/translator.js';

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
  /** The same in parts, told in the page's language: the event type, its reason, the app or thing it named. */
  event?: { type: string; reason: string | null; name: string | null };
  userAgent: string | null;
  ipAddress: string | null;
}

/**
 * What the account page confirms after a redirect, chosen by its key (`?notice=profile-saved`): no text comes from
 * the URL. These are the words when the page does not know what the change was about (a reload, a shared link);
 * right after the change it names it (noticeText).
 */
export const ACCOUNT_NOTICES = {
  welcome: 'account.notice.welcomePlain',
  'profile-saved': 'account.notice.profileSaved',
  'avatar-uploaded': 'account.notice.pictureInPlace',
  'avatar-saved': 'account.notice.pictureInPlace',
  'avatar-removed': 'account.notice.pictureRemoved',
  'password-changed': 'account.notice.passwordChanged',
  'session-ended': 'account.notice.sessionEnded',
  'access-removed': 'account.notice.accessRemoved',
  'verification-sent': 'account.notice.verificationSent',
  'verification-limit': 'account.notice.verificationLimit',
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
export function noticeText(t: Translator['t'], notice: AccountNotice, subject: string | undefined, user: AccountPageProps['user'], brandName: string): string {
  switch (notice) {
    case 'welcome':
      return t('account.notice.welcome', { brand: brandName });
    case 'profile-saved':
      return t('account.notice.nameNow', { name: user.name });
    case 'avatar-saved':
      return user.avatarUrl ? t('account.notice.pictureFrom', { host: safeHost(user.avatarUrl) ?? t('account.notice.anotherSite') }) : t(ACCOUNT_NOTICES[notice]);
    case 'session-ended':
      return subject ? t('account.notice.sessionEndedNamed', { session: subject }) : t(ACCOUNT_NOTICES[notice]);
    case 'access-removed':
      return subject ? t('account.notice.accessRemovedNamed', { app: subject }) : t(ACCOUNT_NOTICES[notice]);
    default:
      return t(ACCOUNT_NOTICES[notice]);
  }
}

function safeHost(url: string): string | null {
  try {
    return new URL(url).host;
  } catch {
    return null;
  }
}

/** The words around browser and system names in the page's language ("Firefox 133 auf Windows"). */
export function userAgentWords(t: Translator['t']): UserAgentWords {
  return { unknown: t('account.device.unknown'), browserOnSystem: (browser, system) => t('account.device.browserOnSystem', { browser, system }) };
}

/** "Firefox 133 on Windows, 203.0.113.5": how a session is named in buttons and notices. */
export function describeSession(session: Pick<AccountSessionView, 'userAgent' | 'ipAddress'>, words?: UserAgentWords): string {
  return session.ipAddress ? `${describeUserAgent(session.userAgent, words)}, ${session.ipAddress}` : describeUserAgent(session.userAgent, words);
}

/** What an app can see, in words (consent's list, shortened): the widest scope first. */
function describeScopes(t: Translator['t'], scope: readonly string[], brand: string): string[] {
  const lines: string[] = [];
  if (scope.includes('profile')) lines.push(t('account.scope.profile'));
  else if (scope.includes('email')) lines.push(t('account.scope.email'));
  if (scope.includes('openid')) lines.push(t('account.scope.openid', { brand }));
  return lines.length > 0 ? lines : [t('account.scope.none', { brand })];
}

/** A line of "Recent activity" in the page's language; English keeps the words the route wrote. */
function describeActivity({ t, has, locale }: Translator, item: AccountActivityView): string {
  if (locale === 'en' || !item.event) return item.what;
  const typeKey = `activity.${item.event.type}`;
  const reasonKey = `activity.reason.${item.event.reason}`;
  const label = has(typeKey) ? t(typeKey) : t('activity.other');
  const reason = item.event.reason && has(reasonKey) ? t(reasonKey) : null;
  return `${label}${item.event.name ? `: ${item.event.name}` : ''}${reason ? ` (${reason})` : ''}`;
}

/** On a Latch that sends no real mail: where its mail is. */
function LocalOutboxHint() {
  const { t, rich } = useI18n();
  const brand = useBrandName();
  return (
    <p class="hint" id="local-outbox-hint">
      {rich('account.localOutbox', { brand, outbox: <a href="/dev/outbox">{t('forgot.localOutbox.link')}</a> })}
    </p>
  );
}

function Avatar({ url, name }: { url: string | null; name: string }) {
  // alt="": the name is written right beside it.
  return url ? <img class="avatar" src={url} alt="" width={64} height={64} /> : <span class="avatar placeholder" aria-hidden="true">{name.trim().charAt(0).toUpperCase() || '?'}</span>;
}

function SessionItem({ session, csrfToken }: { session: AccountSessionView; csrfToken: string }) {
  const { t, dateTime } = useI18n();
  const words = userAgentWords(t);
  const { browser, system } = parseUserAgent(session.userAgent);
  const name = browser ?? (system ? null : describeUserAgent(session.userAgent, words));
  return (
    <li>
      <div>
        <strong>{name ?? t('account.session.unknownBrowser')}</strong>
        {system ? ` ${t('account.session.onSystem', { system })}` : null} {session.isCurrent ? <span class="badge ok">{t('account.session.thisDevice')}</span> : null}
        <br />
        <span class="muted">
          {t('account.session.facts', {
            address: session.ipAddress ?? t('account.session.unknownAddress'),
            active: dateTime(session.lastSeenAt),
            since: dateTime(session.createdAt),
          })}
        </span>
      </div>
      {session.isCurrent ? (
        // This browser signs out through the OIDC logout endpoint, which also tells the apps that listen.
        <PostButton action="/logout" csrfToken={csrfToken} label={t('account.session.signOutThis')} inline />
      ) : (
        <PostButton
          action="/account/sessions/end"
          csrfToken={csrfToken}
          label={t('account.session.signOut')}
          ariaLabel={t('account.session.signOutNamed', { session: describeSession(session, words) })}
          fields={{ session: session.id }}
          inline
        />
      )}
    </li>
  );
}

/** The page; routes call it as a function (asPage), so that it reads the page context (its language, the brand). */
export const AccountPage = asPage(function AccountPage(props: AccountPageProps) {
  const i18n = useI18n();
  const { t, dateTime } = i18n;
  const { user, csrfToken } = props;
  // Field errors are told as sentences, whatever rule module wrote them (issue 19 item 2).
  const errors = Object.fromEntries(Object.entries(props.errors).map(([field, message]) => [field, message && asSentence(message)])) as AccountPageProps['errors'];
  const brandName = useBrandName();
  const noticeAt = (place: NoticePlace) =>
    props.notice && NOTICE_PLACES[props.notice] === place ? <Notice>{noticeText(t, props.notice, props.noticeSubject, user, brandName)}</Notice> : null;
  const factors = props.factors ?? { authenticatorApp: false, passkeys: 0 };
  const twoStepOn = props.twoStepOn ?? (factors.authenticatorApp || factors.passkeys > 0);
  return (
    <Layout title={t('account.title')} signedIn current="account" wide>
      <h1 class="page-title">{t('account.title')}</h1>
      <nav class="section-nav" aria-label={t('account.sections')}>
        <a href="#profile">{t('account.profile')}</a>
        <a href="#security">{t('account.security')}</a>
        <a href="#apps">{t('account.apps')}</a>
        <a href="#activity">{t('account.activity')}</a>
      </nav>

      <section class="card" id="profile" aria-labelledby="profile-heading">
        <h2 id="profile-heading">{t('account.profile')}</h2>
        <div class="profile">
          <Avatar url={user.avatarUrl} name={user.name} />
          <div>
            <p class="profile-name">{user.name}</p>
            <p class="muted">
              {user.email}{' '}
              {user.emailVerified ? <span class="badge ok">{t('account.verified')}</span> : <span class="badge warn">{t('account.notVerified')}</span>}
            </p>
          </div>
        </div>
        {noticeAt('email')}
        {!user.emailVerified ? (
          <form method="post" action="/account/verification-email" class="inline-form">
            <CsrfField token={csrfToken} />
            <p class="hint">
              {t('account.confirmEmail')}{' '}
              <button type="submit" class="secondary">
                {t('account.sendNewLink')}
              </button>
            </p>
            {props.localOutbox ? <LocalOutboxHint /> : null}
          </form>
        ) : null}

        <form method="post" action="/account/profile" novalidate class="subsection">
          <CsrfField token={csrfToken} />
          <Field id="name" name="name" label={t('account.name')} autocomplete="name" required value={props.values.name ?? user.name} error={errors.name} hint={t('account.nameHint')} />
          {noticeAt('name')}
          <div class="actions">
            <button type="submit">{t('account.saveName')}</button>
          </div>
        </form>

        {/* One form for the picture: a file to upload, or the address of one, or removing it (the button says which). */}
        <form method="post" action="/account/avatar" enctype="multipart/form-data" novalidate class="subsection">
          <CsrfField token={csrfToken} />
          <fieldset>
            <legend>{t('account.picture')}</legend>
            <Field id="avatar_file" name="avatar" label={t('account.upload')} type="file" accept="image/png,image/jpeg,image/gif,image/webp" hint={t('account.uploadHint')} error={errors.avatarFile} />
            <Field
              id="avatar_url"
              name="avatar_url"
              label={t('account.pictureUrl')}
              type="url"
              value={props.values.avatarUrl ?? (props.usesUploadedAvatar ? '' : (user.avatarUrl ?? ''))}
              error={errors.avatarUrl}
              hint={props.usesUploadedAvatar ? t('account.pictureUrl.uploaded') : t('account.pictureUrl.hint')}
            />
          </fieldset>
          {noticeAt('picture')}
          <div class="actions">
            <button type="submit" name="action" value="save">
              {t('account.savePicture')}
            </button>
            {user.avatarUrl ? (
              <button type="submit" name="action" value="remove" class="secondary">
                {t('account.removePicture')}
              </button>
            ) : null}
          </div>
        </form>
      </section>

      <section class="card" id="security" aria-labelledby="security-heading">
        <h2 id="security-heading">{t('account.security')}</h2>

        <section id="password" aria-labelledby="password-heading" class="subsection">
          <h3 id="password-heading">{t('account.password')}</h3>
          <form method="post" action="/account/password" novalidate>
            <CsrfField token={csrfToken} />
            <input type="hidden" name="username" value={user.email} autocomplete="username" />
            <Field id="current_password" name="current_password" label={t('account.currentPassword')} type="password" autocomplete="current-password" required error={errors.currentPassword} />
            <Field
              id="new_password"
              name="new_password"
              label={t('account.newPassword')}
              type="password"
              autocomplete="new-password"
              required
              error={errors.newPassword}
              hint={t('account.newPasswordHint', { count: props.passwordMinLength })}
            />
            {noticeAt('password')}
            <div class="actions">
              <button type="submit">{t('account.changePassword')}</button>
            </div>
          </form>
        </section>

        <section id="two-step" aria-labelledby="two-step-heading" class="subsection">
          <h3 id="two-step-heading">{t('account.twoStep')}</h3>
          <p>
            {twoStepOn ? <span class="badge ok">{t('twoStepSettings.on')}</span> : <span class="badge warn">{t('twoStepSettings.off')}</span>}{' '}
            {twoStepOn ? t('account.twoStep.on') : t('account.twoStep.off')}
          </p>
          <ul class="facts">
            <li>{factors.authenticatorApp ? t('account.factors.app.on') : t('account.factors.app.off')}</li>
            <li>{factors.passkeys === 0 ? t('account.factors.passkeys.none') : t('account.factors.passkeys', { count: factors.passkeys })}</li>
          </ul>
          <p>
            <a href="/account/two-step">{twoStepOn ? t('account.twoStep.manage') : t('account.twoStep.setUp')}</a>
          </p>
        </section>

        <section id="sessions" aria-labelledby="sessions-heading" class="subsection">
          <h3 id="sessions-heading">{t('account.sessions')}</h3>
          {noticeAt('sessions')}
          <ul class="plain">
            {props.sessions.map((session) => (
              <SessionItem session={session} csrfToken={csrfToken} />
            ))}
          </ul>
          <PostButton action="/account/sessions/end-all" csrfToken={csrfToken} label={t('account.signOutEverywhere')}>
            <p class="muted">{t('account.signOutEverywhere.hint', { brand: brandName })}</p>
          </PostButton>
        </section>
      </section>

      <section class="card" id="apps" aria-labelledby="apps-heading">
        <h2 id="apps-heading">{t('account.apps')}</h2>
        {noticeAt('apps')}
        {props.apps.length === 0 ? (
          <p class="muted">{t('account.apps.none', { brand: brandName })}</p>
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
                    {t('account.apps.canSee', { scopes: describeScopes(t, app.scope, brandName).join('; '), granted: dateTime(app.grantedAt) })}{' '}
                    {app.lastUsedAt ? t('account.apps.lastUsed', { used: dateTime(app.lastUsedAt) }) : t('account.apps.notUsed')}
                  </span>
                </div>
                <PostButton
                  action="/account/apps/remove"
                  csrfToken={csrfToken}
                  label={t('account.apps.remove')}
                  ariaLabel={t('account.apps.removeNamed', { app: app.name })}
                  fields={{ client_id: app.clientId }}
                  inline
                />
              </li>
            ))}
          </ul>
        )}
      </section>

      <section class="card" id="activity" aria-labelledby="activity-heading">
        <h2 id="activity-heading">{t('account.activity')}</h2>
        {props.activity.length === 0 ? (
          <p class="muted">{t('account.activity.none')}</p>
        ) : (
          // On a narrow screen the table scrolls sideways: focusable so that a keyboard can scroll it (WCAG 2.1.1),
          // a group named by the heading so that a screen reader says what it entered.
          <div class="table-scroll" tabIndex={0} role="group" aria-labelledby="activity-heading">
            <table>
              <thead>
                <tr>
                  <th scope="col">{t('account.activity.when')}</th>
                  <th scope="col">{t('account.activity.what')}</th>
                  <th scope="col">{t('account.activity.browser')}</th>
                  <th scope="col">{t('account.activity.address')}</th>
                </tr>
              </thead>
              <tbody>
                {props.activity.map((item) => (
                  <tr>
                    <td>{dateTime(item.at)}</td>
                    <td>{describeActivity(i18n, item)}</td>
                    <td>{item.userAgent === null ? '—' : describeUserAgent(item.userAgent, userAgentWords(t))}</td>
                    <td>{item.ipAddress ?? '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <p class="muted">{t('account.activity.hint')}</p>
      </section>
    </Layout>
  );
});
