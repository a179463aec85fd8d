/** The admin console's id_token signing keys and their states (`latch keys list`; rotation stays with the CLI). */
import { AdminLayout, ScrollingTable } from '../components/admin-nav.js';
import { asPage, useI18n } from '../page-context.js';
import type { MessageKey } from '../../i18n/messages/index.js';

export type KeyState = 'pending' | 'active' | 'previous' | 'retired';

const STATE_TEXT: Record<KeyState, MessageKey> = {
  pending: 'admin.keys.state.pending',
  active: 'admin.keys.state.active',
  previous: 'admin.keys.state.previous',
  retired: 'admin.keys.state.retired',
};

export interface AdminKeyView {
  kid: string;
  alg: string;
  state: KeyState;
  createdAt: Date;
  activatesAt: Date;
  deactivatesAt: Date | null;
  retiresAt: Date | null;
}

export const AdminKeysPage = asPage(function AdminKeysPage({ keys }: { keys: AdminKeyView[] }) {
  const { t, rich, dateTime } = useI18n();
  return (
    <AdminLayout title={t('admin.nav.keys')} section="keys">
      <section class="card" aria-labelledby="keys-heading">
        <h1 id="keys-heading">{t('admin.nav.keys')}</h1>
        <p class="lead">{rich('admin.keys.lead', { rotate: <code>latch keys rotate</code>, retire: <code>latch keys retire KID</code> })}</p>
        {keys.length === 0 ? (
          <p class="muted">{t('admin.keys.none')}</p>
        ) : (
          <ScrollingTable labelledBy="keys-heading">
            <thead>
              <tr>
                <th scope="col">{t('admin.keys.kid')}</th>
                <th scope="col">{t('admin.keys.alg')}</th>
                <th scope="col">{t('admin.keys.state')}</th>
                <th scope="col">{t('admin.created')}</th>
                <th scope="col">{t('admin.keys.signsFrom')}</th>
                <th scope="col">{t('admin.keys.stopsSigning')}</th>
                <th scope="col">{t('admin.keys.leaves')}</th>
              </tr>
            </thead>
            <tbody>
              {keys.map((key) => (
                <tr>
                  <td>
                    <code>{key.kid}</code>
                  </td>
                  <td>{key.alg}</td>
                  <td>
                    <span class={key.state === 'active' ? 'badge ok' : key.state === 'retired' ? 'badge' : 'badge warn'}>{t(`admin.keys.badge.${key.state}`)}</span>
                    <br />
                    <span class="muted">{t(STATE_TEXT[key.state])}</span>
                  </td>
                  <td>{dateTime(key.createdAt)}</td>
                  <td>{dateTime(key.activatesAt)}</td>
                  <td>{key.deactivatesAt ? dateTime(key.deactivatesAt) : '—'}</td>
                  <td>{key.retiresAt ? dateTime(key.retiresAt) : '—'}</td>
                </tr>
              ))}
            </tbody>
          </ScrollingTable>
        )}
      </section>
    </AdminLayout>
  );
});
