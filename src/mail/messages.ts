/** The text of Latch's mails: plain text, with the one link each mail exists for on a line of its own. */
import type { MailMessage } from './mailer.js';

function describeDuration(seconds: number): string {
  if (seconds % 86400 === 0) return seconds === 86400 ? '24 hours' : `${seconds / 86400} days`;
  if (seconds % 3600 === 0) return seconds === 3600 ? '1 hour' : `${seconds / 3600} hours`;
  return `${Math.round(seconds / 60)} minutes`;
}

export function emailVerificationMessage(to: { email: string; name: string }, link: string, ttlSeconds: number): MailMessage {
  return {
    to: to.email,
    subject: 'Confirm your email address for Latch',
    text: [
      `Hello ${to.name},`,
      '',
      'Confirm that this is your email address by opening this link:',
      '',
      link,
      '',
      `The link works once, for ${describeDuration(ttlSeconds)}.`,
      'If you did not create a Latch account, ignore this mail.',
    ].join('\n'),
  };
}

export function passwordResetMessage(to: { email: string; name: string }, link: string, ttlSeconds: number): MailMessage {
  return {
    to: to.email,
    subject: 'Reset your Latch password',
    text: [
      `Hello ${to.name},`,
      '',
      'Someone (we hope you) asked to reset the password of your Latch account. Choose a new one here:',
      '',
      link,
      '',
      `The link works once, for ${describeDuration(ttlSeconds)}. Setting a new password signs out every other session.`,
      'If you did not ask for this, ignore this mail: your password stays as it is.',
    ].join('\n'),
  };
}

export { describeDuration };
