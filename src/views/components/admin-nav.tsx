/**
 * The admin console's own navigation (users, clients, events, signing keys), under the site header, with the
 * current section marked (aria-current), and the frame every admin page shares.
 */
import type { ComponentChildren } from 'preact';
import { Layout } from '../layout.js';
import { useI18n } from '../page-context.js';
import type { MessageKey } from '../../i18n/messages/index.js';

export type AdminSection = 'users' | 'clients' | 'events' | 'keys';

const SECTIONS: ReadonlyArray<[AdminSection, string, MessageKey]> = [
  ['users', '/admin/users', 'admin.nav.users'],
  ['clients', '/admin/clients', 'admin.nav.clients'],
  ['events', '/admin/events', 'admin.nav.events'],
  ['keys', '/admin/keys', 'admin.nav.keys'],
];

export function AdminLayout({ title, section, children }: { title: string; section: AdminSection; children: ComponentChildren }) {
  const { t } = useI18n();
  return (
    <Layout title={t('admin.title', { title })} signedIn wide current="admin">
      <nav class="admin-nav" aria-label={t('admin.nav')}>
        {SECTIONS.map(([key, href, label]) => (
          <a href={href} aria-current={key === section ? 'page' : undefined}>
            {t(label)}
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
