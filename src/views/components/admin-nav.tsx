/**
 * The admin console's own navigation (users, clients, events, signing keys), under the site header, with the
 * current section marked (aria-current), and the frame every admin page shares.
 */
import type { ComponentChildren } from 'preact';
import { Layout } from '../layout.js';

export type AdminSection = 'users' | 'clients' | 'events' | 'keys';

const SECTIONS: ReadonlyArray<[AdminSection, string, string]> = [
  ['users', '/admin/users', 'Users'],
  ['clients', '/admin/clients', 'Clients'],
  ['events', '/admin/events', 'Events'],
  ['keys', '/admin/keys', 'Signing keys'],
];

export function AdminLayout({ title, section, children }: { title: string; section: AdminSection; children: ComponentChildren }) {
  return (
    <Layout title={`${title} · Admin`} signedIn wide current="admin">
      <nav class="admin-nav" aria-label="Admin console">
        {SECTIONS.map(([key, href, label]) => (
          <a href={href} aria-current={key === section ? 'page' : undefined}>
            {label}
          </a>
        ))}
      </nav>
      {children}
    </Layout>
  );
}

/** A table that scrolls sideways on a narrow screen, focusable and named by its heading (WCAG 2.1.1). */
export function ScrollingTable({ labelledBy, children }: { labelledBy: string; children: ComponentChildren }) {
  return (
    <div class="table-scroll" tabIndex={0} role="group" aria-labelledby={labelledBy}>
      <table>{children}</table>
    </div>
  );
}
