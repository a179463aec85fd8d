/** The shared page frame. Rendered to a string by preact-render-to-string, which escapes every value. */
import type { ComponentChildren } from 'preact';
import { useI18n, usePageContext } from './page-context.js';

export interface LayoutProps {
  /** The page's title; a function of the brand name for titles that name it ("Sign out of Acme?"). */
  title: string | ((brandName: string) => string);
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
  current?: 'account' | 'developer' | 'login' | 'admin';
}

export function Layout({ title, children, wide, signedIn, withCopyScript, inFlow, current }: LayoutProps) {
  const here = (page: LayoutProps['current']) => (current === page ? { 'aria-current': 'page' as const } : {});
  // The brand and the request's sign-in state come from http/render-page.tsx; a page that knows better says so.
  const { brand, stylesheetHref, signedIn: requestSignedIn, isAdmin } = usePageContext();
  const { t, locale } = useI18n();
  signedIn = signedIn ?? requestSignedIn ?? false;
  return (
    <html lang={locale}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <title>{typeof title === 'function' ? title(brand.name) : title === brand.name ? title : `${title} · ${brand.name}`}</title>
        <link rel="stylesheet" href={stylesheetHref} />
        {brand.faviconUrl ? <link rel="icon" href={brand.faviconUrl} /> : <link rel="icon" href="/favicon.svg" type="image/svg+xml" />}
        {/* Progressive enhancement only (copy buttons): every page works without it. CSP: script-src 'self'. */}
        {withCopyScript ? <script src="/assets/latch.js" defer /> : null}
      </head>
      <body>
        <a class="skip" href="#content">
          {t('layout.skip')}
        </a>
        <header class="site">
          <a class="brand" href="/">
            {/* alt="": the name is written beside the logo. */}
            {brand.logoUrl ? <img class="brand-logo" src={brand.logoUrl} alt="" height={28} /> : null}
            {brand.name}
          </a>
          <nav aria-label={t('layout.nav.main')}>
            {inFlow ? null : signedIn ? (
              <>
                <a href="/account" {...here('account')}>
                  {t('layout.nav.account')}
                </a>
                <a href="/developer" {...here('developer')}>
                  {t('layout.nav.developer')}
                </a>
                {/* Only administrators see the way to the admin console (README "Admin console"). */}
                {isAdmin || current === 'admin' ? (
                  <a href="/admin" {...here('admin')}>
                    {t('layout.nav.admin')}
                  </a>
                ) : null}
              </>
            ) : current === 'login' ? null : (
              <a href="/login">{t('layout.nav.signIn')}</a>
            )}
          </nav>
        </header>
        <main id="content" class={wide ? 'wide' : undefined}>
          {children}
        </main>
        <footer class="site">
          <span>{brand.name}</span>
          {brand.privacyUrl || brand.termsUrl || brand.helpUrl ? (
            <nav aria-label={t('layout.nav.legal')}>
              {brand.privacyUrl ? <a href={brand.privacyUrl}>{t('layout.footer.privacy')}</a> : null}
              {brand.termsUrl ? <a href={brand.termsUrl}>{t('layout.footer.terms')}</a> : null}
              {brand.helpUrl ? <a href={brand.helpUrl}>{t('layout.footer.help')}</a> : null}
            </nav>
          ) : null}
        </footer>
      </body>
    </html>
  );
}
