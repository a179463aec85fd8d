/** The admin console's id_token signing keys and their states (`latch keys list`; rotation stays with the CLI). */
import { AdminLayout, ScrollingTable } from '../components/admin-nav.js';
import { formatTime } from '../format.js';

export type KeyState = 'pending' | 'active' | 'previous' | 'retired';

const STATE_TEXT: Record<KeyState, string> = {
  pending: 'Pending: published, signs from its activation',
  active: 'Active: signs new id_tokens',
  previous: 'Previous: published, no longer signs',
  retired: 'Retired: no longer published',
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

export function AdminKeysPage({ keys }: { keys: AdminKeyView[] }) {
  return (
    <AdminLayout title="Signing keys" section="keys">
      <section class="card" aria-labelledby="keys-heading">
        <h1 id="keys-heading">Signing keys</h1>
        <p class="lead">
          The keys that sign id_tokens, as published at the JWKS endpoint. Rotate or retire them with <code>latch keys rotate</code> and <code>latch keys retire KID</code>.
        </p>
        {keys.length === 0 ? (
          <p class="muted">No signing keys yet.</p>
        ) : (
          <ScrollingTable labelledBy="keys-heading">
            <thead>
              <tr>
                <th scope="col">Key id</th>
                <th scope="col">Algorithm</th>
                <th scope="col">State</th>
                <th scope="col">Created</th>
                <th scope="col">Signs from</th>
                <th scope="col">Stops signing</th>
                <th scope="col">Leaves the JWKS</th>
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
                    <span class={key.state === 'active' ? 'badge ok' : key.state === 'retired' ? 'badge' : 'badge warn'}>{key.state}</span>
                    <br />
                    <span class="muted">{STATE_TEXT[key.state]}</span>
                  </td>
                  <td>{formatTime(key.createdAt)}</td>
                  <td>{formatTime(key.activatesAt)}</td>
                  <td>{key.deactivatesAt ? formatTime(key.deactivatesAt) : '—'}</td>
                  <td>{key.retiresAt ? formatTime(key.retiresAt) : '—'}</td>
                </tr>
              ))}
            </tbody>
          </ScrollingTable>
        )}
      </section>
    </AdminLayout>
  );
}
