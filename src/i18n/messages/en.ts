/**
 * English: the source of every message key. Another language's catalogue is typed against these keys
 * (Catalogue), so that a key it lacks fails the typecheck. Plain text only: no HTML (the renderer escapes);
 * a sentence holding a link names it as a {placeholder} that the page fills with the element.
 */
import type { Message } from './types.js';

export const en = {
  // The frame of every page (views/layout.tsx).
  'layout.skip': 'Skip to content',
  'layout.nav.main': 'Main',
  'layout.nav.account': 'Account',
  'layout.nav.developer': 'Developer',
  'layout.nav.admin': 'Admin',
  'layout.nav.signIn': 'Sign in',
  'layout.nav.legal': 'Legal and help',
  'layout.footer.privacy': 'Privacy',
  'layout.footer.terms': 'Terms',
  'layout.footer.help': 'Help',

  // Durations (Translator.duration).
  'duration.minutes': { one: '{count} minute', other: '{count} minutes' },
  'duration.hours': { one: '{count} hour', other: '{count} hours' },
  'duration.days': { one: '{count} day', other: '{count} days' },
} as const satisfies Readonly<Record<string, Message>>;

export type MessageKey = keyof typeof en;
/** A language's catalogue: every key of the English one, no other. */
export type Catalogue = Readonly<Record<MessageKey, Message>>;
