/**
 * The languages Latch's pages and mails are written in (issue 19 item 7), listed in discovery as
 * `ui_locales_supported` (OIDC Discovery §3). English is the source and the default; README "Languages" says
 * how to add one.
 */
export const SUPPORTED_LOCALES = ['en', 'de'] as const;
export type Locale = (typeof SUPPORTED_LOCALES)[number];
export const DEFAULT_LOCALE: Locale = 'en';
