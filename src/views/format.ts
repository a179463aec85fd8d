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

/** "Chrome on Linux" from a User-Agent header, or a short fallback. */
export function describeUserAgent(userAgent: string | null): string {
  if (!userAgent) return 'Unknown device';
  const browser =
    /Edg\//.test(userAgent) ? 'Edge'
    : /Firefox\//.test(userAgent) ? 'Firefox'
    : /(Chrome|Chromium|HeadlessChrome)\//.test(userAgent) ? 'Chrome'
    : /Safari\//.test(userAgent) ? 'Safari'
    : /^curl\//.test(userAgent) ? 'curl'
    : null;
  const system =
    /iPhone|iPad/.test(userAgent) ? 'iOS'
    : /Android/.test(userAgent) ? 'Android'
    : /Windows/.test(userAgent) ? 'Windows'
    : /Mac OS X|Macintosh/.test(userAgent) ? 'macOS'
    : /Linux|X11/.test(userAgent) ? 'Linux'
    : null;
  if (browser && system) return `${browser} on ${system}`;
  if (browser || system) return (browser ?? system) as string;
  return userAgent.length > 60 ? `${userAgent.slice(0, 57)}…` : userAgent;
}

/** What a client receives for each scope, in words a person understands (consent and connected apps). */
export function describeScopes(scope: readonly string[]): string[] {
  const lines: string[] = [];
  if (scope.includes('profile')) lines.push('Your email address, name and avatar');
  else if (scope.includes('email')) lines.push('Your email address');
  if (scope.includes('openid')) lines.push('Your Latch account id, to sign you in');
  return lines.length > 0 ? lines : ['Your Latch account id'];
}
