/**
 * t(key, params): a message of the language's catalogue with its placeholders filled in. Messages are plain
 * text; the pages' renderer escapes them (no HTML in a catalogue). A sentence with a link or an emphasised name
 * in it is given as parts: rich(key, { app: <strong>…</strong> }) puts the component's elements where the
 * placeholders are. Plurals follow the language's rules (Intl.PluralRules on the `count` parameter); dates and
 * durations are written by Intl.
 */
import type { ComponentChild } from 'preact';
import { DEFAULT_LOCALE, type Locale } from './locales.js';
import { CATALOGUES, type Message, type MessageKey } from './messages/index.js';

export type Params = Readonly<Record<string, string | number>>;

/**
 * A message of the catalogue with its parameters, to be told later in the language of the page that shows it:
 * a broken rule of a registration (clients/), a note of the integration guide, an id_token check of the
 * playground. A parameter may be such a message itself ("{subject} must not be empty", the subject told in the
 * same language). Plain data, so that it can be kept (the playground's sealed cookie) and compared in tests.
 */
export interface CatalogueText {
  readonly key: MessageKey;
  readonly params?: Readonly<Record<string, string | number | CatalogueText>>;
}

export interface Translator {
  readonly locale: Locale;
  t(key: MessageKey, params?: Params): string;
  /** A CatalogueText told in this language, its parameters that are messages too. */
  text(message: CatalogueText): string;
  /** Whether a key made at run time ("activity." + an event type) is in the catalogue. */
  has(key: string): key is MessageKey;
  /** The message split at its placeholders, each filled with the component's element or text. */
  rich(key: MessageKey, parts: Readonly<Record<string, ComponentChild>>): ComponentChild[];
  /**
   * In UTC, said so, as Latch's times always were: English keeps its unambiguous "2026-11-25 14:05 UTC"
   * (views/format.ts formatTime); another language is written by Intl.DateTimeFormat ("25.11.2026, 14:05 UTC").
   */
  dateTime(date: Date): string;
  /** "in 10 minutes", "vor 3 Tagen". */
  relativeTime(date: Date, now: Date): string;
  /** "24 hours", "7 Tage", "1 Stunde": a duration in seconds as a person says it. */
  duration(seconds: number): string;
}

const PLACEHOLDER = /\{(\w+)\}/g;

const pluralRules = new Map<Locale, Intl.PluralRules>();

function select(message: Message, locale: Locale, params: Params | undefined): string {
  if (typeof message === 'string') return message;
  const count = Number(params?.count ?? 0);
  let rules = pluralRules.get(locale);
  if (!rules) pluralRules.set(locale, (rules = new Intl.PluralRules(locale)));
  const category = rules.select(count);
  return message[category as keyof typeof message] ?? message.other;
}

function missing(name: string): never {
  // A component that forgot a parameter is a bug to see in tests, not a "{name}" to show to people.
  throw new Error(`message parameter {${name}} was not given`);
}

const cache = new Map<Locale, Translator>();

export function translator(locale: Locale = DEFAULT_LOCALE): Translator {
  const known = cache.get(locale);
  if (known) return known;
  const catalogue = CATALOGUES[locale];
  const numbers = new Intl.NumberFormat(locale);
  const t = (key: MessageKey, params?: Params): string =>
    select(catalogue[key], locale, params).replace(PLACEHOLDER, (_, name: string) => {
      const value = params?.[name];
      if (value === undefined) return missing(name);
      return typeof value === 'number' ? numbers.format(value) : value;
    });
  const dateTimes = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });
  const relative = new Intl.RelativeTimeFormat(locale, { numeric: 'auto' });
  const text = (message: CatalogueText): string => {
    const params: Record<string, string | number> = {};
    for (const [name, value] of Object.entries(message.params ?? {})) params[name] = typeof value === 'object' ? text(value) : value;
    return t(message.key, params);
  };
  const made: Translator = {
    locale,
    t,
    text,
    has: (key): key is MessageKey => Object.hasOwn(catalogue, key),
    rich(key, parts) {
      const text = select(catalogue[key], locale, undefined);
      const out: ComponentChild[] = [];
      let last = 0;
      for (const match of text.matchAll(PLACEHOLDER)) {
        if (match.index > last) out.push(text.slice(last, match.index));
        const name = match[1]!;
        if (!(name in parts)) missing(name);
        out.push(parts[name]);
        last = match.index + match[0].length;
      }
      if (last < text.length) out.push(text.slice(last));
      return out;
    },
    dateTime: (date) => (locale === 'en' ? `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC` : `${dateTimes.format(date)} UTC`),
    relativeTime(date, now) {
      const seconds = Math.round((date.getTime() - now.getTime()) / 1000);
      const abs = Math.abs(seconds);
      if (abs < 60) return relative.format(seconds, 'second');
      if (abs < 3600) return relative.format(Math.round(seconds / 60), 'minute');
      if (abs < 86400) return relative.format(Math.round(seconds / 3600), 'hour');
      return relative.format(Math.round(seconds / 86400), 'day');
    },
    duration(seconds) {
      if (seconds % 86400 === 0 && seconds !== 86400) return t('duration.days', { count: seconds / 86400 });
      if (seconds % 3600 === 0) return t('duration.hours', { count: seconds / 3600 });
      return t('duration.minutes', { count: Math.round(seconds / 60) });
    },
  };
  cache.set(locale, made);
  return made;
}

/** A CatalogueText in English: what the CLI, the log and the OAuth error responses say (they stay English). */
export function inEnglish(message: CatalogueText): string {
  return translator('en').text(message);
}
