/**
 * The rules of redirect URLs, in one wording wherever the console states them (the registration and settings
 * forms, the failed-request comparison, the playground): they are the rules clients/redirect-uri-match.ts and
 * clients/redirect-uri-policy.ts apply. Exact comparison (RFC 9700 §4.1.3), except that a loopback IP URL matches
 * any port (RFC 8252 §7.3); https, http only to a loopback host while developing, or a private-use scheme for a
 * native app (RFC 8252 §7.1).
 */

/** The rules in one sentence each: the hint of the redirect URL field, and the text of RedirectUrlRules. */
export const REDIRECT_URL_RULES =
  'One per line. Compared exactly, character for character: scheme, host, port, path, trailing slash and query must all be the same as the app sends. ' +
  'One exception: a URL on http://127.0.0.1 or http://[::1] matches any port (not http://localhost). ' +
  'Use https://, or http:// to localhost, 127.0.0.1 or [::1] while developing; a mobile app may use a scheme named after its domain (com.example.app:/callback).';

/** What a comparison note (clients/redirect-uri-match.ts RedirectUriNote) means, said once. */
export const DIFFERENCE_NOTES = {
  'letter case': 'The same letters in another case: the comparison is case-sensitive.',
  'default port': 'A default port (:443, :80) written on one side only still makes another URL.',
  'percent-encoding': 'The same once decoded, but percent-encoding is compared as written.',
  'loopback port ignored': 'The ports were not compared: a URL on http://127.0.0.1 or http://[::1] matches any port.',
  'port exception not for this host': 'Only http://127.0.0.1 and http://[::1] match any port; this host is compared with its port.',
} as const;
export type DifferenceNote = keyof typeof DIFFERENCE_NOTES;

/** How a sent redirect_uri differs from the closest registered one: the view model of the comparison. */
export interface RedirectUrlDifferenceView {
  part: string;
  /** The differing part as sent and as registered; null when absent there. */
  sent: string | null;
  registered: string | null;
  note: DifferenceNote | null;
}

/** The rules as a paragraph, for pages that show them outside the form. */
export function RedirectUrlRules({ id }: { id?: string }) {
  return (
    <p class="hint" id={id}>
      {REDIRECT_URL_RULES}
    </p>
  );
}

function Part({ value }: { value: string | null }) {
  return value === null ? <em>nothing</em> : value === '' ? <em>empty</em> : <code>{value}</code>;
}

/** "the path: /other sent, /cb registered", then what the note explains. */
export function RedirectUrlDifference({ difference }: { difference: RedirectUrlDifferenceView }) {
  return (
    <>
      the {difference.part}
      {difference.part === 'whole URI' ? null : (
        <>
          : <Part value={difference.sent} /> sent, <Part value={difference.registered} /> registered
        </>
      )}
      {difference.note ? <span> ({DIFFERENCE_NOTES[difference.note]})</span> : null}
    </>
  );
}
