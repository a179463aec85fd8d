/**
 * The text of Latch's mails: plain text, with the one link each mail exists for on a line of its own. Each mail
 * names the operator's product (`brandName`, LATCH_BRAND_NAME; issue 19 item 6), as the pages do.
 */
import { describeDuration } from '../views/format.js';
import type { MailMessage } from './mailer.js';

export function emailVerificationMessage(to: { email: string; name: string }, link: string, ttlSeconds: number, brandName: string): MailMessage {
  return {
    to: to.email,
    subject: `Confirm your email address for ${brandName}`,
    text: [
      `Hello ${to.name},`,
      '',
      'Confirm that this is your email address by opening this link:',
      '',
      link,
      '',
      `The link works once, for ${describeDuration(ttlSeconds)}.`,
      `If you did not create a ${brandName} account, ignore this mail.`,
    ].join('\n'),
  };
}

export function passwordResetMessage(to: { email: string; name: string }, link: string, ttlSeconds: number, brandName: string): MailMessage {
  return {
    to: to.email,
    subject: `Reset your ${brandName} password`,
    text: [
      `Hello ${to.name},`,
      '',
      `Someone (we hope you) asked to reset the password of your ${brandName} account. Choose a new one here:`,
      '',
      link,
      '',
      `The link works once, for ${describeDuration(ttlSeconds)}. Setting a new password signs out every other session.`,
      'If you did not ask for this, ignore this mail: your password stays as it is.',
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
): MailMessage {
  const what: readonly [string, string] = {
    'app-added': [`An authenticator app was added to your ${brandName} account`, 'Two-step verification is now on: signing in asks for a code from the app after your password.'],
    'app-removed': [`The authenticator app was removed from your ${brandName} account`, 'Two-step verification is now off: signing in needs only your password.'],
    'recovery-codes-regenerated': [`New recovery codes for your ${brandName} account`, 'New recovery codes were made for your account; the old ones no longer work.'],
  }[change] as [string, string];
  return {
    to: to.email,
    subject: what[0],
    text: [
      `Hello ${to.name},`,
      '',
      what[1],
      '',
      'If this was not you, change your password and check your two-step verification settings now:',
      '',
      accountUrl,
    ].join('\n'),
  };
}

/** A passkey was added to or removed from the account (issue 17). */
export function passkeyChangedMessage(to: { email: string; name: string }, change: 'added' | 'removed', passkeyName: string, accountUrl: string, brandName: string): MailMessage {
  return {
    to: to.email,
    subject: change === 'added' ? `A passkey was added to your ${brandName} account` : `A passkey was removed from your ${brandName} account`,
    text: [
      `Hello ${to.name},`,
      '',
      change === 'added' ? `The passkey "${passkeyName}" can now sign in to your account.` : `The passkey "${passkeyName}" can no longer sign in to your account.`,
      '',
      'If this was not you, change your password and check your passkeys now:',
      '',
      accountUrl,
    ].join('\n'),
  };
}
