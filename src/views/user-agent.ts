/**
 * Which browser and system a session or an event came from, from its User-Agent header, for the account page
 * ("Firefox 133 on Windows"). No user-agent library is a dependency of Latch; this small table covers the browsers
 * and systems people use (and the tools developers use), and anything else is shown shortened, as it came.
 * A User-Agent says what the client claims: it tells sessions apart, it proves nothing.
 */

export interface UserAgentParts {
  /** "Firefox 133", "Safari 17", "curl 8"; null when not recognised. */
  browser: string | null;
  /** "Windows", "iPhone", "Android", "macOS", …; null when not recognised. */
  system: string | null;
}

/**
 * Browsers, first match wins: Chromium-based browsers name Chrome and Safari too, and Chrome names Safari, so
 * each comes before the ones whose token it also carries. The group captures the major version.
 */
const BROWSERS: ReadonlyArray<readonly [name: string, pattern: RegExp]> = [
  ['Edge', /\bEdg(?:e|A|iOS)?\/(\d+)/],
  ['Opera', /\b(?:OPR|OPiOS)\/(\d+)/],
  ['Samsung Internet', /\bSamsungBrowser\/(\d+)/],
  ['Vivaldi', /\bVivaldi\/(\d+)/],
  ['Yandex Browser', /\bYaBrowser\/(\d+)/],
  ['Firefox', /\b(?:Firefox|FxiOS)\/(\d+)/],
  ['Chrome', /\b(?:HeadlessChrome|Chrome|CriOS|Chromium)\/(\d+)/],
  // Safari says its version in Version/; Safari/ is the WebKit build number.
  ['Safari', /\bVersion\/(\d+)[^ ]* (?:Mobile\/\S+ )?Safari\//],
  ['curl', /^curl\/(\d+)/],
  ['Wget', /^Wget\/(\d+)/],
  ['Postman', /^PostmanRuntime\/(\d+)/],
  ['Python requests', /^python-requests\/(\d+)/],
  ['Node.js', /^node(?:-fetch)?\/?(\d+)?|^undici/],
];

/** Systems, first match wins: Android and ChromeOS carry "Linux", iOS carries "like Mac OS X". */
const SYSTEMS: ReadonlyArray<readonly [name: string, pattern: RegExp]> = [
  ['iPhone', /\biPhone\b|\biPod\b/],
  ['iPad', /\biPad\b/],
  ['Android', /\bAndroid\b/],
  ['ChromeOS', /\bCrOS\b/],
  ['Windows', /\bWindows\b/],
  ['macOS', /\bMac OS X\b|\bMacintosh\b/],
  ['Linux', /\bLinux\b|\bX11\b/],
];

export function parseUserAgent(userAgent: string | null): UserAgentParts {
  if (!userAgent) return { browser: null, system: null };
  let browser: string | null = null;
  for (const [name, pattern] of BROWSERS) {
    const match = pattern.exec(userAgent);
    if (match) {
      browser = match[1] ? `${name} ${match[1]}` : name;
      break;
    }
  }
  const system = SYSTEMS.find(([, pattern]) => pattern.test(userAgent))?.[0] ?? null;
  return { browser, system };
}

/** The words around the names, in the page's language (pages/account-page.tsx userAgentWords). */
export interface UserAgentWords {
  unknown: string;
  browserOnSystem(browser: string, system: string): string;
}

const ENGLISH: UserAgentWords = { unknown: 'Unknown device', browserOnSystem: (browser, system) => `${browser} on ${system}` };

/** "Chrome 131 on macOS", "curl 8", or the header itself, shortened, when neither is recognised. */
export function describeUserAgent(userAgent: string | null, words: UserAgentWords = ENGLISH): string {
  if (!userAgent) return words.unknown;
  const { browser, system } = parseUserAgent(userAgent);
  if (browser && system) return words.browserOnSystem(browser, system);
  if (browser || system) return (browser ?? system) as string;
  return userAgent.length > 60 ? `${userAgent.slice(0, 57)}…` : userAgent;
}
