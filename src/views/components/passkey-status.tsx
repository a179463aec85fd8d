/**
 * The line where the passkey script (views/passkey-script.ts) says how it is going, with its words in the page's
 * language as data attributes: the script has no catalogue of its own. On a page not in English the script says
 * its own "could not be used" instead of the server's English reason (the reason stays in the log).
 */
import type { ComponentChildren } from 'preact';
import { useI18n } from '../page-context.js';

/** `children`: what the line says before the script runs ("Adding a passkey needs JavaScript."). */
export function PasskeyStatus({ children }: { children?: ComponentChildren }) {
  const { t } = useI18n();
  return (
    <p
      id="passkey-status"
      aria-live="polite"
      class="hint"
      data-say-unsupported={t('passkey.unsupported')}
      data-say-prompt={t('passkey.prompt')}
      data-say-closed={t('passkey.closed')}
      data-say-failed={t('passkey.failed')}
    >
      {children}
    </p>
  );
}
