/**
 * The admin console's clients: every registered app, however it was registered (the developer console, the
 * command line, or by itself at /oauth2/register, RFC 7591), and one client's page.
 */
import { AdminLayout, ScrollingTable } from '../components/admin-nav.js';
import { asPage, useBrandName, useI18n } from '../page-context.js';
import type { Translator } from '../../i18n/translator.js';
import type { MessageKey } from '../../i18n/messages/index.js';
import { EventTable, type AdminEventRow } from './admin-events-page.js';

/** How a client came to be: a person in the developer console, an operator with the CLI, or itself (RFC 7591). */
export type ClientOrigin = 'console' | 'cli' | 'dynamic';

const ORIGIN_LABELS: Record<ClientOrigin, MessageKey> = {
  console: 'admin.clients.origin.console',
  cli: 'admin.clients.origin.cli',
  dynamic: 'admin.clients.origin.dynamic',
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
  const { t } = useI18n();
  return <span class={origin === 'dynamic' ? 'badge warn' : 'badge'}>{t(ORIGIN_LABELS[origin])}</span>;
}

export const AdminClientsPage = asPage(function AdminClientsPage({ clients }: { clients: AdminClientSummary[] }) {
  const { t, dateTime } = useI18n();
  const brand = useBrandName();
  return (
    <AdminLayout title={t('admin.nav.clients')} section="clients">
      <section class="card" aria-labelledby="clients-heading">
        <h1 id="clients-heading">{t('admin.nav.clients')}</h1>
        <p class="lead">{t('admin.clients.lead', { brand })}</p>
        {clients.length === 0 ? (
          <p class="muted">{t('admin.clients.none')}</p>
        ) : (
          <ScrollingTable labelledBy="clients-heading">
            <thead>
              <tr>
                <th scope="col">{t('admin.clients.name')}</th>
                <th scope="col">{t('admin.clients.id')}</th>
                <th scope="col">{t('admin.clients.registeredBy')}</th>
                <th scope="col">{t('admin.clients.kind')}</th>
                <th scope="col">{t('admin.created')}</th>
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
                  <td>{describeKind(t, client)}</td>
                  <td>{dateTime(client.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </ScrollingTable>
        )}
      </section>
    </AdminLayout>
  );
});

function describeKind(t: Translator['t'], client: Pick<AdminClientSummary, 'isPublic' | 'grantTypes'>): string {
  if (client.grantTypes.includes('client_credentials') && !client.grantTypes.includes('authorization_code')) return t('admin.clients.kind.service');
  return client.isPublic ? t('admin.clients.kind.public') : t('admin.clients.kind.confidential');
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
  const { t } = useI18n();
  if (uris.length === 0) return <>{t('admin.none')}</>;
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

export const AdminClientPage = asPage(function AdminClientPage({ client, liveGrants, events }: AdminClientPageProps) {
  const { t, dateTime } = useI18n();
  return (
    <AdminLayout title={client.name} section="clients">
      <p>
        <a href="/admin/clients">{t('admin.client.allClients')}</a>
      </p>
      <section class="card" aria-labelledby="client-heading">
        <h1 id="client-heading">{client.name}</h1>
        <p>
          <OriginBadge origin={client.origin} />
        </p>
        <dl class="facts">
          <dt>{t('admin.clients.id')}</dt>
          <dd>
            <code>{client.clientId}</code>
          </dd>
          <dt>{t('admin.clients.registeredBy')}</dt>
          <dd>
            {client.owner ? (
              <a href={`/admin/users/${client.owner.id}`}>{client.owner.email}</a>
            ) : client.origin === 'dynamic' ? (
              t('admin.client.byItself')
            ) : (
              t('admin.client.byOperator')
            )}
          </dd>
          <dt>{t('admin.clients.kind')}</dt>
          <dd>{describeKind(t, client)}</dd>
          <dt>{t('admin.client.grantTypes')}</dt>
          <dd>{client.grantTypes.join(', ')}</dd>
          {client.scope.length > 0 ? (
            <>
              <dt>{t('admin.client.serviceScopes')}</dt>
              <dd>{client.scope.join(' ')}</dd>
            </>
          ) : null}
          <dt>{t('admin.client.redirectUrls')}</dt>
          <dd>
            <UriList uris={client.redirectUris} />
          </dd>
          <dt>{t('admin.client.afterSignOut')}</dt>
          <dd>
            <UriList uris={client.postLogoutRedirectUris} />
          </dd>
          <dt>{t('admin.client.backchannel')}</dt>
          <dd>{client.backchannelLogoutUri ? <code>{client.backchannelLogoutUri}</code> : t('admin.none')}</dd>
          <dt>{t('admin.client.homepage')}</dt>
          <dd>{client.homepageUrl ? <code>{client.homepageUrl}</code> : t('admin.none')}</dd>
          <dt>{t('admin.client.twoStep')}</dt>
          <dd>{client.requireMfa ? t('admin.client.mfaRequired') : t('admin.client.mfaNotRequired')}</dd>
          <dt>{t('admin.client.alg')}</dt>
          <dd>{client.idTokenSignedResponseAlg}</dd>
          <dt>{t('admin.client.liveGrants')}</dt>
          <dd>{liveGrants}</dd>
          {client.previousSecretExpiresAt ? (
            <>
              <dt>{t('admin.client.previousSecret')}</dt>
              <dd>{dateTime(client.previousSecretExpiresAt)}</dd>
            </>
          ) : null}
          <dt>{t('admin.created')}</dt>
          <dd>{dateTime(client.createdAt)}</dd>
          <dt>{t('admin.lastChanged')}</dt>
          <dd>{dateTime(client.updatedAt)}</dd>
        </dl>
      </section>
      <section class="card" aria-labelledby="client-events-heading">
        <h2 id="client-events-heading">{t('admin.recentEvents')}</h2>
        {events.length === 0 ? <p class="muted">{t('admin.none')}.</p> : <EventTable events={events} labelledBy="client-events-heading" />}
        <p>
          <a href={`/admin/events?client=${encodeURIComponent(client.clientId)}`}>{t('admin.client.allEvents')}</a>
        </p>
      </section>
    </AdminLayout>
  );
});
