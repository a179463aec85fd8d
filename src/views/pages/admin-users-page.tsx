/** The admin console's users: search by email or name, each a link to its page. */
import { AdminLayout, ScrollingTable } from '../components/admin-nav.js';
import { Notice } from '../components/notice.js';
import { asPage, useI18n } from '../page-context.js';

export const ADMIN_USERS_NOTICES = {
  deleted: 'admin.users.notice.deleted',
} as const;
export type AdminUsersNotice = keyof typeof ADMIN_USERS_NOTICES;

export interface AdminUserSummary {
  id: number;
  email: string;
  name: string;
  emailVerified: boolean;
  isAdmin: boolean;
  disabled: boolean;
  createdAt: Date;
}

export interface AdminUsersPageProps {
  query: string;
  users: AdminUserSummary[];
  /** More matched than are shown. */
  truncated: boolean;
  notice?: AdminUsersNotice | undefined;
}

export function UserBadges({ user }: { user: Pick<AdminUserSummary, 'isAdmin' | 'disabled' | 'emailVerified'> }) {
  const { t } = useI18n();
  return (
    <>
      {user.isAdmin ? <span class="badge ok">{t('admin.users.badge.admin')}</span> : null} {user.disabled ? <span class="badge warn">{t('admin.users.badge.disabled')}</span> : null}{' '}
      {user.emailVerified ? null : <span class="badge">{t('admin.users.badge.unconfirmed')}</span>}
    </>
  );
}

export const AdminUsersPage = asPage(function AdminUsersPage({ query, users, truncated, notice }: AdminUsersPageProps) {
  const { t, dateTime } = useI18n();
  return (
    <AdminLayout title={t('admin.nav.users')} section="users">
      <Notice>{notice && t(ADMIN_USERS_NOTICES[notice])}</Notice>
      <section class="card" aria-labelledby="users-heading">
        <h1 id="users-heading">{t('admin.nav.users')}</h1>
        <form method="get" action="/admin/users" role="search">
          <div class="field">
            <label for="q">{t('admin.users.search')}</label>
            <input id="q" name="q" type="search" value={query} spellcheck={false} />
          </div>
          <div class="actions">
            <button type="submit">{t('admin.users.searchButton')}</button>
          </div>
        </form>
      </section>
      <section class="card" aria-labelledby="results-heading">
        <h2 id="results-heading">{query ? t('admin.users.matching', { query }) : t('admin.users.all')}</h2>
        {users.length === 0 ? (
          <p class="muted">{t('admin.users.noMatch')}</p>
        ) : (
          <ScrollingTable labelledBy="results-heading">
            <thead>
              <tr>
                <th scope="col">{t('admin.users.email')}</th>
                <th scope="col">{t('admin.users.name')}</th>
                <th scope="col">{t('admin.users.status')}</th>
                <th scope="col">{t('admin.created')}</th>
              </tr>
            </thead>
            <tbody>
              {users.map((user) => (
                <tr>
                  <td>
                    <a href={`/admin/users/${user.id}`}>{user.email}</a>
                  </td>
                  <td>{user.name}</td>
                  <td>
                    <UserBadges user={user} />
                  </td>
                  <td>{dateTime(user.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </ScrollingTable>
        )}
        {truncated ? <p class="muted">{t('admin.users.truncated', { count: users.length })}</p> : null}
      </section>
    </AdminLayout>
  );
});
