/** The admin console's event log: the audit trail, newest first, filtered like `latch events`. */
import { AdminLayout, ScrollingTable } from '../components/admin-nav.js';
import { formatTime } from '../format.js';

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
  if (!who) return <>—</>;
  return who.email ? <a href={`/admin/users/${who.id}`}>{who.email}</a> : <>#{who.id} (deleted)</>;
}

/** The events as a table; also on a user's and a client's page. */
export function EventTable({ events, labelledBy }: { events: AdminEventRow[]; labelledBy: string }) {
  return (
    <ScrollingTable labelledBy={labelledBy}>
      <thead>
        <tr>
          <th scope="col">When</th>
          <th scope="col">Event</th>
          <th scope="col">User</th>
          <th scope="col">By</th>
          <th scope="col">Client</th>
          <th scope="col">Address</th>
          <th scope="col">Details</th>
        </tr>
      </thead>
      <tbody>
        {events.map((event) => (
          <tr>
            <td>{formatTime(event.at)}</td>
            <td>
              {event.label}
              <br />
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
                  <span class="muted">request {event.requestId}</span>
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

export function AdminEventsPage({ values, errors, typeOptions, events, limit, olderHref, newestHref }: AdminEventsPageProps) {
  const typeError = errors.type;
  return (
    <AdminLayout title="Events" section="events">
      <section class="card" aria-labelledby="events-filter-heading">
        <h1 id="events-filter-heading">Events</h1>
        <p class="lead">The audit trail, newest first: the same filters as <code>latch events</code>.</p>
        <form method="get" action="/admin/events" novalidate>
          <FilterField id="user" label="User" hint="An email address or an account number" value={values.user} error={errors.user} />
          <FilterField id="client" label="Client id" hint="Events of one app" value={values.client} error={errors.client} />
          <div class={typeError ? 'field has-error' : 'field'}>
            <label for="type">Type</label>
            <select id="type" name="type" aria-describedby={typeError ? 'type-error' : undefined} aria-invalid={typeError ? 'true' : undefined}>
              <option value="" selected={values.type === ''}>
                Any type
              </option>
              <optgroup label="Families">
                {typeOptions.families.map((family) => (
                  <option value={family} selected={values.type === family}>
                    {family}
                  </option>
                ))}
              </optgroup>
              <optgroup label="Types">
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
          <FilterField id="since" label="Since" hint="A time (2026-11-24, 2026-11-24T09:30:00Z) or an age (30m, 24h, 7d)" value={values.since} error={errors.since} />
          <div class="actions">
            <button type="submit">Show events</button>
            <a class="button secondary" href="/admin/events">
              Clear filters
            </a>
          </div>
        </form>
      </section>
      {Object.keys(errors).length > 0 ? (
        <p class="muted">Correct the filters above to see the events.</p>
      ) : (
        <section class="card" aria-labelledby="events-heading">
          <h2 id="events-heading">
            {newestHref ? 'Older events' : 'Events'}, newest first ({events.length})
          </h2>
          {events.length === 0 ? <p class="muted">No events.</p> : <EventTable events={events} labelledBy="events-heading" />}
          {olderHref || newestHref ? (
            <p class="actions">
              {newestHref ? <a href={newestHref}>Back to the newest events</a> : null}
              {olderHref ? <a href={olderHref}>Older events</a> : null}
            </p>
          ) : null}
        </section>
      )}
    </AdminLayout>
  );
}
