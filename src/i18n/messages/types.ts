/** A message: text with {placeholders}, or its plural forms by Intl.PluralRules category ({count} chooses). */
export interface PluralMessage {
  readonly zero?: string;
  readonly one?: string;
  readonly two?: string;
  readonly few?: string;
  readonly many?: string;
  readonly other: string;
}
export type Message = string | PluralMessage;
