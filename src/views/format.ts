/** Small display helpers shared by pages. Output is plain text: the JSX renderer escapes it. */

/** "2026-11-23 14:05 UTC": unambiguous for everyone, whatever their locale. */
export function formatTime(date: Date): string {
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** "24 hours", "7 days", "1 hour", "15 minutes": a duration in seconds as a person says it. */
export function describeDuration(seconds: number): string {
  if (seconds % 86400 === 0) return seconds === 86400 ? '24 hours' : `${seconds / 86400} days`;
  if (seconds % 3600 === 0) return seconds === 3600 ? '1 hour' : `${seconds / 3600} hours`;
  return `${Math.round(seconds / 60)} minutes`;
}

/** "Chrome 131 on Linux" from a User-Agent header, or a short fallback (user-agent.ts). */
export { describeUserAgent } from './user-agent.js';

/** What a client receives for each scope, in words a person understands (consent and connected apps). */
export function describeScopes(scope: readonly string[], brandName = 'Latch'): string[] {
  const lines: string[] = [];
  if (scope.includes('profile')) lines.push('Your email address, name and avatar');
  else if (scope.includes('email')) lines.push('Your email address');
  if (scope.includes('openid')) lines.push(`Your ${brandName} account id, to sign you in`);
  return lines.length > 0 ? lines : [`Your ${brandName} account id`];
}

/** "request body is too large" → "Request body is too large.": what a page says to a person is a sentence. */
export function asSentence(text: string): string {
  const trimmed = text.trim();
  if (trimmed === '') return trimmed;
  const capitalised = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?…]$/.test(capitalised) ? capitalised : `${capitalised}.`;
}
