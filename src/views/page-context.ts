/**
 * What every page's frame needs beyond its own props, given once per render by http/render-page.tsx through a
 * Preact context: the operator's brand (config-brand.ts), the stylesheet's versioned address, and whether the
 * browser is signed in (so that the header says so on every page, error pages included, without each page
 * being told).
 */
import { createHash } from 'node:crypto';
import { createContext, h, type FunctionComponent, type VNode } from 'preact';
import { useContext } from 'preact/hooks';
import { DEFAULT_ACCENT_COLOUR, type BrandSettings } from '../config-brand.js';
import { translator, type Translator } from '../i18n/translator.js';
import { STYLESHEET } from './styles.js';

export interface PageContext {
  brand: BrandSettings;
  /** /assets/latch.css?v=<hash of its text>: a new brand colour or a new release is fetched at once, not after the cache hour. */
  stylesheetHref: string;
  /** The browser's sign-in state as the request found it; undefined when nobody looked (the page's own prop decides). */
  signedIn?: boolean | undefined;
  /** The signed-in account may open the admin console: the header links to it (session/sign-in-state.ts). */
  isAdmin?: boolean | undefined;
  /** The page's language (http/page-locale.ts) and its messages: t(key, params) (i18n/translator.ts). */
  i18n?: Translator | undefined;
}

export const DEFAULT_BRAND: BrandSettings = {
  name: 'Latch',
  logoUrl: null,
  accentColour: DEFAULT_ACCENT_COLOUR,
  faviconUrl: null,
  privacyUrl: null,
  termsUrl: null,
  helpUrl: null,
};

/** The stylesheet with the brand's accent colour, served at /assets/latch.css. */
export function brandedStylesheet(brand: BrandSettings): string {
  // The later :root rule wins over the default one at the top of STYLESHEET (same specificity, later in order).
  return `${STYLESHEET}\n:root { --accent: ${brand.accentColour}; }\n`;
}

export function stylesheetHrefFor(stylesheet: string): string {
  return `/assets/latch.css?v=${createHash('sha256').update(stylesheet).digest('hex').slice(0, 12)}`;
}

/**
 * Latch's default favicon (/favicon.svg): a keyhole, white on the accent colour. SVG, so that it is sharp at
 * every size; every current browser takes an SVG icon.
 */
export function defaultFaviconSvg(brand: BrandSettings): string {
  return [
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">',
    `<rect width="32" height="32" rx="7" fill="${brand.accentColour}"/>`,
    '<circle cx="16" cy="12.5" r="5" fill="#fff"/>',
    '<path d="M13.2 15.5h5.6l1.7 9.5h-9z" fill="#fff"/>',
    '</svg>',
  ].join('');
}

const PageContextValue = createContext<PageContext>({ brand: DEFAULT_BRAND, stylesheetHref: '/assets/latch.css' });
export const PageContextProvider = PageContextValue.Provider;

export function usePageContext(): PageContext {
  return useContext(PageContextValue);
}

/** The page's messages in its language: `const { t } = useI18n()`; English when nobody chose. */
export function useI18n(): Translator {
  return usePageContext().i18n ?? translator();
}

/**
 * A page as a function of its props that may use the page context (useI18n): rendered as a component, so that
 * route code can keep calling `SignInPage({ … })` and get the element renderPage renders inside the context.
 */
export function asPage<P extends object>(page: FunctionComponent<P>): (props: P) => VNode {
  const render = (props: P) => h(page, props) as VNode;
  TRANSLATED_PAGES.add(page).add(render);
  return render;
}

/**
 * The pages written with the catalogue (asPage, or marked here): only they are rendered in the person's
 * language. Any other page is English throughout, its frame and `<html lang>` included, so that no page is half
 * in one language and half in another (README "Languages").
 */
const TRANSLATED_PAGES = new WeakSet<object>();

export function translatedPage<T extends object>(page: T): T {
  TRANSLATED_PAGES.add(page);
  return page;
}

export function isTranslatedPage(page: VNode): boolean {
  return typeof page.type === 'function' && TRANSLATED_PAGES.has(page.type);
}

/** The operator's product name, for pages that name it ("Sign in to Acme"). */
export function useBrandName(): string {
  return usePageContext().brand.name;
}

/** The operator's product name as a component, for text inside any page ("Sign out of <BrandName />?"). */
export function BrandName(): string {
  return useBrandName();
}
