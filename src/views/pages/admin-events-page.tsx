/** The admin console's event log: the audit trail, newest first, filtered like `latch events`. */
import { AdminLayout, ScrollingTable } from '../components/admin-nav.js';
import { asPage, useI18n } from '../page-context.js';

export interface AdminEventRow {
  id: number;
  at: Date;
  type: string;
  /** The type in words. */
  label: string;
  user: { id: number; email: string | null } | null;
  /** The administrator who did it, when not the user. */
  actor: { id: number; email: string | null } | null;
  clientId: string | null;
  ipAddress: string | null;
  userAgent: string | null;
  requestId: string | null;
  /** key=value pairs. */
  details: string;
}

export type EventFilterField = 'user' | 'client' | 'type' | 'since';

export interface AdminEventsPageProps {
  values: Record<EventFilterField, string>;
  errors: Partial<Record<EventFilterField, string>>;
  /** Types and families to choose from. */
  typeOptions: { families: string[]; types: string[] };
  events: AdminEventRow[];
  limit: number;
  /** The next page, older events with the same filters; absent when these are all. */
  olderHref?: string | undefined;
  /** This page is not the first: the way back to the newest. */
  newestHref?: string | undefined;
}

function Who({ who }: { who: { id: number; email: string | null } | null }) {
  const { t } = useI18n();
  if (!who) return <>—</>;
  return who.email ? <a href={`/admin/users/${who.id}`}>{who.email}</a> : <>{t('admin.events.deleted', { id: String(who.id) })}</>;
}

/** The events as a table; also on a user's and a client's page. */
export function EventTable({ events, labelledBy }: { events: AdminEventRow[]; labelledBy: string }) {
  const { t, has, locale, dateTime } = useI18n();
  // The type in words: English keeps the route's label; another language its own, or the type's name alone.
  const label = (event: AdminEventRow) => {
    const key = `activity.${event.type}`;
    return locale === 'en' ? event.label : has(key) ? t(key) : null;
  };
  return (
    <ScrollingTable labelledBy={labelledBy}>
      <thead>
        <tr>
          <th scope="col">{t('admin.events.when')}</th>
          <th scope="col">{t('admin.events.event')}</th>
          <th scope="col">{t('admin.events.user')}</th>
          <th scope="col">{t('admin.events.by')}</th>
          <th scope="col">{t('admin.events.client')}</th>
          <th scope="col">{t('admin.events.address')}</th>
          <th scope="col">{t('admin.events.details')}</th>
        </tr>
      </thead>
      <tbody>
        {events.map((event) => (
          <tr>
            <td>{dateTime(event.at)}</td>
            <td>
              {label(event) ? (
                <>
                  {label(event)}
                  <br />
                </>
              ) : null}
              <code>{event.type}</code>
            </td>
            <td>
              <Who who={event.user} />
            </td>
            <td>
              <Who who={event.actor} />
            </td>
            <td>{event.clientId ? <a href={`/admin/clients/${encodeURIComponent(event.clientId)}`}>{event.clientId}</a> : '—'}</td>
            <td>{event.ipAddress ?? '—'}</td>
            <td>
              {event.details ? <code>{event.details}</code> : null}
              {event.requestId ? (
                <>
                  {event.details ? <br /> : null}
                  <span class="muted">{t('admin.events.request', { id: event.requestId })}</span>
                </>
              ) : null}
            </td>
          </tr>
        ))}
      </tbody>
    </ScrollingTable>
  );
}

function FilterField({ id, label, hint, value, error }: { id: EventFilterField; label: string; hint: string; value: string; error: string | undefined }) {
  const describedBy = [`${id}-hint`, error ? `${id}-error` : null].filter(Boolean).join(' ');
  return (
    <div class={error ? 'field has-error' : 'field'}>
      <label for={id}>{label}</label>
      <p class="hint" id={`${id}-hint`}>
        {hint}
      </p>
      <input id={id} name={id} type="text" value={value} spellcheck={false} aria-describedby={describedBy} aria-invalid={error ? 'true' : undefined} autofocus={!!error} />
      {error ? (
        <p class="field-error" id={`${id}-error`}>
          {error}
        </p>
      ) : null}
    </div>
  );
}

export const AdminEventsPage = asPage(function AdminEventsPage({ values, errors, typeOptions, events, limit, olderHref, newestHref }: AdminEventsPageProps) {
  const { t, rich } = useI18n();
  const typeError = errors.type;
  return (
    <AdminLayout title={t('admin.nav.events')} section="events">
      <section class="card" aria-labelledby="events-filter-heading">
        <h1 id="events-filter-heading">{t('admin.nav.events')}</h1>
        <p class="lead">{rich('admin.events.lead', { command: <code>latch events</code> })}</p>
        <form method="get" action="/admin/events" novalidate>
          <FilterField id="user" label={t('admin.events.filter.user')} hint={t('admin.events.filter.userHint')} value={values.user} error={errors.user} />
          <FilterField id="client" label={t('admin.events.filter.client')} hint={t('admin.events.filter.clientHint')} value={values.client} error={errors.client} />
          <div class={typeError ? 'field has-error' : 'field'}>
            <label for="type">{t('admin.events.filter.type')}</label>
            <select id="type" name="type" aria-describedby={typeError ? 'type-error' : undefined} aria-invalid={typeError ? 'true' : undefined}>
              <option value="" selected={values.type === ''}>
                {t('admin.events.filter.anyType')}
              </option>
              <optgroup label={t('admin.events.filter.families')}>
                {typeOptions.families.map((family) => (
                  <option value={family} selected={values.type === family}>
                    {family}
                  </option>
                ))}
              </optgroup>
              <optgroup label={t('admin.events.filter.types')}>
                {typeOptions.types.map((type) => (
                  <option value={type} selected={values.type === type}>
                    {type}
                  </option>
                ))}
              </optgroup>
            </select>
            {typeError ? (
              <p class="field-error" id="type-error">
                {typeError}
              </p>
            ) : null}
          </div>
          <FilterField id="since" label={t('admin.events.filter.since')} hint={t('admin.events.filter.sinceHint')} value={values.since} error={errors.since} />
          <div class="actions">
            <button type="submit">{t('admin.events.show')}</button>
            <a class="button secondary" href="/admin/events">
              {t('admin.events.clear')}
            </a>
          </div>
        </form>
      </section>
      {Object.keys(errors).length > 0 ? (
        <p class="muted">{t('admin.events.correct')}</p>
      ) : (
        <section class="card" aria-labelledby="events-heading">
          <h2 id="events-heading">{t(newestHref ? 'admin.events.older' : 'admin.events.newest', { count: events.length })}</h2>
          {events.length === 0 ? <p class="muted">{t('admin.events.none')}</p> : <EventTable events={events} labelledBy="events-heading" />}
          {olderHref || newestHref ? (
            <p class="actions">
              {newestHref ? <a href={newestHref}>{t('admin.events.backToNewest')}</a> : null}
              {olderHref ? <a href={olderHref}>{t('admin.events.olderLink')}</a> : null}
            </p>
          ) : null}
        </section>
      )}
    </AdminLayout>
  );
});
