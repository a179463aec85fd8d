/** The admin console's users: search by email or name, each a link to its page. */
import { AdminLayout, ScrollingTable } from '../components/admin-nav.js';
import { Notice } from '../components/notice.js';
import { formatTime } from '../format.js';

export const ADMIN_USERS_NOTICES = {
  deleted: 'The account was deleted, with its sessions, tokens, consents and second factors.',
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
  return (
    <>
      {user.isAdmin ? <span class="badge ok">Administrator</span> : null} {user.disabled ? <span class="badge warn">Disabled</span> : null}{' '}
      {user.emailVerified ? null : <span class="badge">Email not confirmed</span>}
    </>
  );
}

export function AdminUsersPage({ query, users, truncated, notice }: AdminUsersPageProps) {
  return (
    <AdminLayout title="Users" section="users">
      <Notice>{notice && ADMIN_USERS_NOTICES[notice]}</Notice>
      <section class="card" aria-labelledby="users-heading">
        <h1 id="users-heading">Users</h1>
        <form method="get" action="/admin/users" role="search">
          <div class="field">
            <label for="q">Search by email or name</label>
            <input id="q" name="q" type="search" value={query} spellcheck={false} />
          </div>
          <div class="actions">
            <button type="submit">Search</button>
          </div>
        </form>
      </section>
      <section class="card" aria-labelledby="results-heading">
        <h2 id="results-heading">{query ? `Accounts matching “${query}”` : 'All accounts'}</h2>
        {users.length === 0 ? (
          <p class="muted">No account matches.</p>
        ) : (
          <ScrollingTable labelledBy="results-heading">
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">Created</th>
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
                  <td>{formatTime(user.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </ScrollingTable>
        )}
        {truncated ? <p class="muted">Only the first {users.length} are shown: search to narrow them down.</p> : null}
      </section>
    </AdminLayout>
  );
}
