/**
 * Text that people read as a name (a person's name, an app's name on the consent page): what it must not hold.
 *
 * Control characters (Unicode Cc) and the invisible marks that reorder text (Unicode Bidi_Control: U+061C, U+200E,
 * U+200F, U+202A–U+202E, U+2066–U+2069): a right-to-left override makes "Example Bank" of a name stored as something
 * else (the "Trojan Source" trick, CVE-2021-42574), and a control character has no business in a name shown in one
 * line.
 */
export function hasControlOrDirectionMark(text: string): boolean {
  return /[\p{Cc}\p{Bidi_Control}]/u.test(text);
}

/** True when the text is only spaces and format characters (Unicode Cf, such as U+200B): it shows as nothing. */
export function showsAsNothing(text: string): boolean {
  return text.replace(/[\s\p{Cf}]/gu, '').length === 0;
}
