/** The shared page frame. Rendered to a string by preact-render-to-string, which escapes every value. */
import type { ComponentChildren } from 'preact';

export interface LayoutProps {
  title: string;
  children: ComponentChildren;
  wide?: boolean;
  signedIn?: boolean;
  /** Loads /assets/latch.js (copy buttons): only pages with something to copy; the rest carry no script. */
  withCopyScript?: boolean;
  /**
   * A page in the middle of an app's sign-in (consent): the header leaves out the way to the account and the
   * console, which would lose the app's request.
   */
  inFlow?: boolean;
  /** The page the header links to, marked as the current one (and, for the sign-in page, not linked to itself). */
  current?: 'account' | 'developer' | 'login';
}

export function Layout({ title, children, wide, signedIn, withCopyScript, inFlow, current }: LayoutProps) {
  const here = (page: LayoutProps['current']) => (current === page ? { 'aria-current': 'page' as const } : {});
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <title>{`${title} · Latch`}</title>
        <link rel="stylesheet" href="/assets/latch.css" />
        {/* Progressive enhancement only (copy buttons): every page works without it. CSP: script-src 'self'. */}
        {withCopyScript ? <script src="/assets/latch.js" defer /> : null}
      </head>
      <body>
        <a class="skip" href="#content">
          Skip to content
        </a>
        <header class="site">
          <a class="brand" href="/">
            Latch
          </a>
          <nav aria-label="Main">
            {inFlow ? null : signedIn ? (
              <>
                <a href="/account" {...here('account')}>
                  Account
                </a>
                <a href="/developer" {...here('developer')}>
                  Developer
                </a>
              </>
            ) : current === 'login' ? null : (
              <a href="/login">Sign in</a>
            )}
          </nav>
        </header>
        <main id="content" class={wide ? 'wide' : undefined}>
          {children}
        </main>
        <footer class="site">Latch identity provider</footer>
      </body>
    </html>
  );
}
