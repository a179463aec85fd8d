/**
 * The admin console's clients: every registered app, however it was registered (the developer console, the
 * command line, or by itself at /oauth2/register, RFC 7591), and one client's page.
 */
import { AdminLayout, ScrollingTable } from '../components/admin-nav.js';
import { formatTime } from '../format.js';
import { EventTable, type AdminEventRow } from './admin-events-page.js';

/** How a client came to be: a person in the developer console, an operator with the CLI, or itself (RFC 7591). */
export type ClientOrigin = 'console' | 'cli' | 'dynamic';

const ORIGIN_LABELS: Record<ClientOrigin, string> = {
  console: 'Developer console',
  cli: 'Command line',
  dynamic: 'Registered itself',
};

export interface AdminClientSummary {
  clientId: string;
  name: string;
  origin: ClientOrigin;
  owner: { id: number; email: string } | null;
  isPublic: boolean;
  grantTypes: string[];
  createdAt: Date;
}

function OriginBadge({ origin }: { origin: ClientOrigin }) {
  return <span class={origin === 'dynamic' ? 'badge warn' : 'badge'}>{ORIGIN_LABELS[origin]}</span>;
}

export function AdminClientsPage({ clients }: { clients: AdminClientSummary[] }) {
  return (
    <AdminLayout title="Clients" section="clients">
      <section class="card" aria-labelledby="clients-heading">
        <h1 id="clients-heading">Clients</h1>
        <p class="lead">Every app registered with this Latch: in the developer console, with the command line, or by itself (dynamic registration, RFC 7591).</p>
        {clients.length === 0 ? (
          <p class="muted">No app is registered.</p>
        ) : (
          <ScrollingTable labelledBy="clients-heading">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Client id</th>
                <th scope="col">Registered by</th>
                <th scope="col">Kind</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {clients.map((client) => (
                <tr>
                  <td>
                    <a href={`/admin/clients/${encodeURIComponent(client.clientId)}`}>{client.name}</a>
                  </td>
                  <td>
                    <code>{client.clientId}</code>
                  </td>
                  <td>
                    <OriginBadge origin={client.origin} />
                    {client.owner ? (
                      <>
                        {' '}
                        <a href={`/admin/users/${client.owner.id}`}>{client.owner.email}</a>
                      </>
                    ) : null}
                  </td>
                  <td>{describeKind(client)}</td>
                  <td>{formatTime(client.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </ScrollingTable>
        )}
      </section>
    </AdminLayout>
  );
}

function describeKind(client: Pick<AdminClientSummary, 'isPublic' | 'grantTypes'>): string {
  if (client.grantTypes.includes('client_credentials') && !client.grantTypes.includes('authorization_code')) return 'Service (client credentials)';
  return client.isPublic ? 'Public (no secret, PKCE)' : 'Confidential (with a secret)';
}

export interface AdminClientView extends AdminClientSummary {
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  backchannelLogoutUri: string | null;
  homepageUrl: string | null;
  scope: string[];
  requireMfa: boolean;
  idTokenSignedResponseAlg: string;
  updatedAt: Date;
  /** A secret rotated lately still works until then. */
  previousSecretExpiresAt: Date | null;
}

export interface AdminClientPageProps {
  client: AdminClientView;
  liveGrants: number;
  events: AdminEventRow[];
}

function UriList({ uris }: { uris: string[] }) {
  if (uris.length === 0) return <>None</>;
  return (
    <ul>
      {uris.map((uri) => (
        <li>
          <code>{uri}</code>
        </li>
      ))}
    </ul>
  );
}

export function AdminClientPage({ client, liveGrants, events }: AdminClientPageProps) {
  return (
    <AdminLayout title={client.name} section="clients">
      <p>
        <a href="/admin/clients">← All clients</a>
      </p>
      <section class="card" aria-labelledby="client-heading">
        <h1 id="client-heading">{client.name}</h1>
        <p>
          <OriginBadge origin={client.origin} />
        </p>
        <dl class="facts">
          <dt>Client id</dt>
          <dd>
            <code>{client.clientId}</code>
          </dd>
          <dt>Registered by</dt>
          <dd>
            {client.owner ? <a href={`/admin/users/${client.owner.id}`}>{client.owner.email}</a> : client.origin === 'dynamic' ? 'The app itself, at /oauth2/register' : 'An operator, with latch client create (or an account deleted since)'}
          </dd>
          <dt>Kind</dt>
          <dd>{describeKind(client)}</dd>
          <dt>Grant types</dt>
          <dd>{client.grantTypes.join(', ')}</dd>
          {client.scope.length > 0 ? (
            <>
              <dt>Service scopes</dt>
              <dd>{client.scope.join(' ')}</dd>
            </>
          ) : null}
          <dt>Redirect URLs</dt>
          <dd>
            <UriList uris={client.redirectUris} />
          </dd>
          <dt>After sign-out</dt>
          <dd>
            <UriList uris={client.postLogoutRedirectUris} />
          </dd>
          <dt>Back-channel logout</dt>
          <dd>{client.backchannelLogoutUri ? <code>{client.backchannelLogoutUri}</code> : 'None'}</dd>
          <dt>Homepage</dt>
          <dd>{client.homepageUrl ? <code>{client.homepageUrl}</code> : 'None'}</dd>
          <dt>Two-step verification</dt>
          <dd>{client.requireMfa ? 'Required of every user' : 'Not required'}</dd>
          <dt>id_token algorithm</dt>
          <dd>{client.idTokenSignedResponseAlg}</dd>
          <dt>Live grants</dt>
          <dd>{liveGrants}</dd>
          {client.previousSecretExpiresAt ? (
            <>
              <dt>Previous secret works until</dt>
              <dd>{formatTime(client.previousSecretExpiresAt)}</dd>
            </>
          ) : null}
          <dt>Created</dt>
          <dd>{formatTime(client.createdAt)}</dd>
          <dt>Last changed</dt>
          <dd>{formatTime(client.updatedAt)}</dd>
        </dl>
      </section>
      <section class="card" aria-labelledby="client-events-heading">
        <h2 id="client-events-heading">Recent events</h2>
        {events.length === 0 ? <p class="muted">None.</p> : <EventTable events={events} labelledBy="client-events-heading" />}
        <p>
          <a href={`/admin/events?client=${encodeURIComponent(client.clientId)}`}>All events of this client</a>
        </p>
      </section>
    </AdminLayout>
  );
}
