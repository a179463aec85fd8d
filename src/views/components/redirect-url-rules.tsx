/**
 * The rules of redirect URLs, in one wording wherever the console states them (the registration and settings
 * forms, the failed-request comparison, the playground): they are the rules clients/redirect-uri-match.ts and
 * clients/redirect-uri-policy.ts apply. Exact comparison (RFC 9700 §4.1.3), except that a loopback IP URL matches
 * any port (RFC 8252 §7.3); https, http only to a loopback host while developing, or a private-use scheme for a
 * native app (RFC 8252 §7.1). The words are the catalogue's ("developer.redirectRules", "developer.difference.").
 */
import type { MessageKey } from '../../i18n/messages/index.js';
import { useI18n } from '../page-context.js';

/** What a comparison note (clients/redirect-uri-match.ts RedirectUriNote) means, said once. */
export const DIFFERENCE_NOTES = {
  'letter case': 'developer.difference.note.letterCase',
  'default port': 'developer.difference.note.defaultPort',
  'percent-encoding': 'developer.difference.note.percentEncoding',
  'loopback port ignored': 'developer.difference.note.loopbackPort',
  'port exception not for this host': 'developer.difference.note.notThisHost',
} as const satisfies Record<string, MessageKey>;
export type DifferenceNote = keyof typeof DIFFERENCE_NOTES;

/** The part in which two URLs differ (clients/redirect-uri-match.ts RedirectUriPart), as "the path". */
const PARTS: Record<string, MessageKey> = {
  scheme: 'developer.difference.part.scheme',
  'user info': 'developer.difference.part.userInfo',
  host: 'developer.difference.part.host',
  port: 'developer.difference.part.port',
  path: 'developer.difference.part.path',
  'trailing slash': 'developer.difference.part.trailingSlash',
  query: 'developer.difference.part.query',
  fragment: 'developer.difference.part.fragment',
  'whole URI': 'developer.difference.part.wholeUri',
};

/** How a sent redirect_uri differs from the closest registered one: the view model of the comparison. */
export interface RedirectUrlDifferenceView {
  part: string;
  /** The differing part as sent and as registered; null when absent there. */
  sent: string | null;
  registered: string | null;
  note: DifferenceNote | null;
}

/** The rules as a paragraph, for pages that show them outside the form (the same words as the field's hint). */
export function RedirectUrlRules({ id }: { id?: string }) {
  const { t } = useI18n();
  return (
    <p class="hint" id={id}>
      {t('developer.redirectRules')}
    </p>
  );
}

function Part({ value }: { value: string | null }) {
  const { t } = useI18n();
  return value === null ? <em>{t('developer.difference.nothing')}</em> : value === '' ? <em>{t('developer.difference.empty')}</em> : <code>{value}</code>;
}

/** "the path: /other sent, /cb registered", then what the note explains. */
export function RedirectUrlDifference({ difference }: { difference: RedirectUrlDifferenceView }) {
  const { t, rich } = useI18n();
  const part = PARTS[difference.part];
  return (
    <>
      {part ? t(part) : difference.part}
      {difference.part === 'whole URI' ? null : (
        <>
          : {rich('developer.difference.values', { sent: <Part value={difference.sent} />, registered: <Part value={difference.registered} /> })}
        </>
      )}
      {difference.note ? <span> ({t(DIFFERENCE_NOTES[difference.note])})</span> : null}
    </>
  );
}
