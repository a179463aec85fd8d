/** German (Deutsch). Typed against the English keys: a missing or unknown key fails the typecheck. */
import type { Catalogue } from './en.js';

export const de: Catalogue = {
  'layout.skip': 'Zum Inhalt springen',
  'layout.nav.main': 'Hauptnavigation',
  'layout.nav.account': 'Konto',
  'layout.nav.developer': 'Entwickler',
  'layout.nav.admin': 'Verwaltung',
  'layout.nav.signIn': 'Anmelden',
  'layout.nav.legal': 'Rechtliches und Hilfe',
  'layout.footer.privacy': 'Datenschutz',
  'layout.footer.terms': 'Nutzungsbedingungen',
  'layout.footer.help': 'Hilfe',

  'duration.minutes': { one: '{count} Minute', other: '{count} Minuten' },
  'duration.hours': { one: '{count} Stunde', other: '{count} Stunden' },
  'duration.days': { one: '{count} Tag', other: '{count} Tage' },
};
