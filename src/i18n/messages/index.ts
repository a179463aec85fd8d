import type { Locale } from '../locales.js';
import { de } from './de.js';
import { en, type Catalogue } from './en.js';

export type { Catalogue, MessageKey } from './en.js';
export type { Message, PluralMessage } from './types.js';

export const CATALOGUES: Readonly<Record<Locale, Catalogue>> = { en, de };
