/**
 * The text of Latch's mails: plain text, with the one link each mail exists for on a line of its own. Each mail
 * names the operator's product (`brandName`, LATCH_BRAND_NAME; issue 19 item 6), as the pages do, and is written
 * in `locale` (issue 19 item 7): the language of the page the person was on when the mail was sent (Latch keeps
 * no language per account; README "Languages"). English when nobody chose.
 */
import { DEFAULT_LOCALE, type Locale } from '../i18n/locales.js';
import { translator } from '../i18n/translator.js';
import type { MailMessage } from './mailer.js';

export function emailVerificationMessage(to: { email: string; name: string }, link: string, ttlSeconds: number, brandName: string, locale: Locale = DEFAULT_LOCALE): MailMessage {
  const { t, duration } = translator(locale);
  return {
    to: to.email,
    subject: t('mail.verify.subject', { brand: brandName }),
    text: [
      t('mail.hello', { name: to.name }),
      '',
      t('mail.verify.open'),
      '',
      link,
      '',
      t('mail.verify.once', { duration: duration(ttlSeconds) }),
      t('mail.verify.ignore', { brand: brandName }),
    ].join('\n'),
  };
}

export function passwordResetMessage(to: { email: string; name: string }, link: string, ttlSeconds: number, brandName: string, locale: Locale = DEFAULT_LOCALE): MailMessage {
  const { t, duration } = translator(locale);
  return {
    to: to.email,
    subject: t('mail.reset.subject', { brand: brandName }),
    text: [
      t('mail.hello', { name: to.name }),
      '',
      t('mail.reset.asked', { brand: brandName }),
      '',
      link,
      '',
      t('mail.reset.once', { duration: duration(ttlSeconds) }),
      t('mail.reset.ignore'),
    ].join('\n'),
  };
}

/**
 * A second factor was added or removed (issue 17): the owner hears of it, so that a change they did not make
 * does not go unnoticed.
 */
export function secondFactorChangedMessage(
  to: { email: string; name: string },
  change: 'app-added' | 'app-removed' | 'recovery-codes-regenerated',
  accountUrl: string,
  brandName: string,
  locale: Locale = DEFAULT_LOCALE,
): MailMessage {
  const { t } = translator(locale);
  const keys = {
    'app-added': ['mail.appAdded.subject', 'mail.appAdded.text'],
    'app-removed': ['mail.appRemoved.subject', 'mail.appRemoved.text'],
    'recovery-codes-regenerated': ['mail.recoveryCodes.subject', 'mail.recoveryCodes.text'],
  } as const;
  const [subject, text] = keys[change];
  return {
    to: to.email,
    subject: t(subject, { brand: brandName }),
    text: [t('mail.hello', { name: to.name }), '', t(text), '', t('mail.secondFactor.notYou'), '', accountUrl].join('\n'),
  };
}

/** A passkey was added to or removed from the account (issue 17). */
export function passkeyChangedMessage(
  to: { email: string; name: string },
  change: 'added' | 'removed',
  passkeyName: string,
  accountUrl: string,
  brandName: string,
  locale: Locale = DEFAULT_LOCALE,
): MailMessage {
  const { t } = translator(locale);
  return {
    to: to.email,
    subject: t(change === 'added' ? 'mail.passkeyAdded.subject' : 'mail.passkeyRemoved.subject', { brand: brandName }),
    text: [
      t('mail.hello', { name: to.name }),
      '',
      t(change === 'added' ? 'mail.passkeyAdded.text' : 'mail.passkeyRemoved.text', { passkey: passkeyName }),
      '',
      t('mail.passkey.notYou'),
      '',
      accountUrl,
    ].join('\n'),
  };
}
