import type { ComponentChildren } from 'preact';
import { Layout } from '../layout.js';

export interface MessagePageProps {
  title: string;
  children: ComponentChildren;
  tone?: 'ok' | 'error' | 'info';
  signedIn?: boolean;
  action?: { href: string; label: string };
}

/** A short page that tells the person what happened and what to do next ("Check your email", "Link expired"). */
export function MessagePage({ title, children, tone = 'info', signedIn, action }: MessagePageProps) {
  return (
    <Layout title={title} signedIn={signedIn}>
      <div class="card" role={tone === 'error' ? 'alert' : undefined}>
        <h1>{title}</h1>
        {children}
        {action ? (
          <div class="actions">
            <a class="button" href={action.href}>
              {action.label}
            </a>
          </div>
        ) : null}
      </div>
    </Layout>
  );
}
