/** The user-agent table (user-agent.ts) as a table: real headers of the browsers and tools people use. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeUserAgent, parseUserAgent } from './user-agent.js';

const CASES: Array<[string, string | null, string]> = [
  ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36', 'Chrome 131 on Windows', 'Chrome on Windows'],
  ['Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Safari/605.1.15', 'Safari 17 on macOS', 'Safari on a Mac'],
  ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Mobile/15E148 Safari/604.1', 'Safari 17 on iPhone', 'Safari on an iPhone, not macOS'],
  ['Mozilla/5.0 (iPad; CPU OS 16_3 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/120.0.6099.119 Mobile/15E148 Safari/604.1', 'Chrome 120 on iPad', 'Chrome on iOS (CriOS)'],
  ['Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0', 'Firefox 133 on Linux', 'Firefox on Linux'],
  ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) FxiOS/129.0 Mobile/15E148 Safari/605.1.15', 'Firefox 129 on iPhone', 'Firefox on iOS (FxiOS)'],
  ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.2903.86', 'Edge 131 on Windows', 'Edge, which also names Chrome and Safari'],
  ['Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36', 'Chrome 131 on Android', 'Android, which also names Linux'],
  ['Mozilla/5.0 (Linux; Android 14; SAMSUNG SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36', 'Samsung Internet 26 on Android', 'Samsung Internet'],
  ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/129.0.0.0 Safari/537.36 OPR/114.0.0.0', 'Opera 114 on Windows', 'Opera'],
  ['Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36', 'Chrome 131 on ChromeOS', 'ChromeOS, which also names Linux-like X11'],
  ['Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/140.0.0.0 Safari/537.36', 'Chrome 140 on Linux', 'headless Chromium (the browser tests)'],
  ['curl/8.5.0', 'curl 8', 'curl'],
  ['python-requests/2.32.3', 'Python requests 2', 'a script'],
  ['node', 'Node.js', "Node's fetch"],
  ['SomeCustomClient/1.0 (+https://example.com)', 'SomeCustomClient/1.0 (+https://example.com)', 'unknown: shown as it came'],
  ['x'.repeat(80), `${'x'.repeat(57)}…`, 'unknown and long: shortened'],
];

test('describeUserAgent names browser, major version and system for known headers, and shows unknown ones as they came', () => {
  for (const [header, expected, why] of CASES) assert.equal(describeUserAgent(header), expected, why);
  assert.equal(describeUserAgent(null), 'Unknown device');
  assert.equal(describeUserAgent(''), 'Unknown device');
});

test('parseUserAgent keeps browser and system apart, null where unknown', () => {
  assert.deepEqual(parseUserAgent('curl/8.5.0'), { browser: 'curl 8', system: null });
  assert.deepEqual(parseUserAgent('Mozilla/5.0 (Windows NT 10.0) Unknown/1'), { browser: null, system: 'Windows' });
  assert.deepEqual(parseUserAgent(null), { browser: null, system: null });
});
