/**
 * Accessibility checks of a page open in Chromium, with axe-core (WCAG 2 A/AA rules and axe's best practices):
 * `checkAccessibility(page, name)` fails when axe finds a violation of impact "serious" or "critical", and
 * names each one (rule, impact, help, the first elements it found) so the failure says what to fix.
 *
 * How axe gets into the page: Latch's pages send `Content-Security-Policy: script-src 'self'`, which refuses
 * the inline script `page.addScriptTag({ content })` would add. axe's source is evaluated through the DevTools
 * protocol instead (`page.evaluate`), which the page's CSP does not govern; the page is checked as served,
 * without turning its CSP off (`bypassCSP`).
 *
 * Pages opened with JavaScript turned off (`browser.newContext({ javaScriptEnabled: false })`): axe is
 * JavaScript, and with script execution disabled its timers never fire, so `axe.run` never returns. For such a
 * page the same URL is checked in a JavaScript-enabled context of the same browser with the same cookies (a
 * GET: a page that was the answer to a form post is checked as its URL serves it). Latch renders the same
 * HTML either way; only the scripts that add buttons (copy, passkeys) differ, and the enabled page has them.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

/** One axe rule that failed, with the elements it failed on. */
export interface AccessibilityViolation {
  id: string;
  impact: 'minor' | 'moderate' | 'serious' | 'critical' | null;
  help: string;
  helpUrl: string;
  /** CSS selectors of the failing elements (axe's `target`; frames and shadow roots joined by " > "). */
  targets: string[];
  /** axe's reason for the first failing element ("Element has insufficient color contrast of 3.1 …"). */
  firstFailure: string;
}

export interface AccessibilityReport {
  /** The URL axe looked at (for a page without JavaScript: the same URL in a JavaScript-enabled page). */
  checkedUrl: string;
  pageHadJavaScriptOff: boolean;
  violations: AccessibilityViolation[];
}

/** The impacts that fail a check: the two axe ranks as barriers, not annoyances. */
const FAILING_IMPACTS: ReadonlySet<AccessibilityViolation['impact']> = new Set(['serious', 'critical']);
/** How many failing elements of one rule the failure message names. */
const TARGETS_SHOWN = 3;

let axeSource: string | undefined;
function readAxeSource(): string {
  // require.resolve('axe-core') is axe.js; axe.min.js beside it is the same build, minified.
  axeSource ??= readFileSync(createRequire(import.meta.url).resolve('axe-core').replace(/axe\.js$/, 'axe.min.js'), 'utf8');
  return axeSource;
}

/** True when the page runs its own timers (JavaScript on). With script execution disabled they never fire. */
async function pageRunsScripts(page: Page): Promise<boolean> {
  const probe = page.evaluate(() => new Promise<boolean>((resolve) => setTimeout(() => resolve(true), 0)));
  const verdict = await Promise.race([probe, new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 500))]);
  probe.catch(() => {}); // a probe left pending when the page closes
  return verdict;
}

/** Runs axe on the document open in `page` (JavaScript on) and returns every violation. */
async function runAxe(page: Page): Promise<AccessibilityViolation[]> {
  await page.evaluate(readAxeSource());
  return page.evaluate(async () => {
    type AxeResult = { id: string; impact: AccessibilityViolation['impact']; help: string; helpUrl: string; nodes: Array<{ target: unknown[]; failureSummary?: string }> };
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: AxeResult[] }> } }).axe;
    const { violations } = await axe.run(document, { resultTypes: ['violations'] });
    return violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      help: violation.help,
      helpUrl: violation.helpUrl,
      targets: violation.nodes.map((node) => node.target.map((part) => (Array.isArray(part) ? part.join(' > ') : String(part))).join(' > ')),
      firstFailure: (violation.nodes[0]?.failureSummary ?? '').replace(/\s+/g, ' ').trim(),
    }));
  });
}

/** The violations of the page as a person without JavaScript gets it: its URL, checked in a JavaScript-enabled page. */
async function runAxeOnUrlWithJavaScript(page: Page): Promise<{ url: string; violations: AccessibilityViolation[] }> {
  const browser = page.context().browser();
  assert.ok(browser, 'checkAccessibility needs a page of browser.newContext() (not a persistent context) to check a page without JavaScript');
  const context = await browser.newContext({ storageState: await page.context().storageState(), viewport: page.viewportSize(), javaScriptEnabled: true });
  try {
    const checking = await context.newPage();
    const response = await checking.goto(page.url());
    assert.ok(response && response.status() < 500, `GET ${page.url()} for the accessibility check gave ${response?.status()}`);
    return { url: checking.url(), violations: await runAxe(checking) };
  } finally {
    await context.close();
  }
}

function describeViolation(violation: AccessibilityViolation): string {
  const shown = violation.targets.slice(0, TARGETS_SHOWN).join(', ');
  const more = violation.targets.length > TARGETS_SHOWN ? ` (+${violation.targets.length - TARGETS_SHOWN} more)` : '';
  return `  - ${violation.id} (${violation.impact}): ${violation.help}\n      elements: ${shown}${more}\n      ${violation.firstFailure}\n      ${violation.helpUrl}`;
}

/**
 * Checks the page open in `page` with axe and fails, naming each rule, when any violation is serious or
 * critical. Returns every violation found (minor and moderate too), for a test that wants to look at them.
 */
export async function checkAccessibility(page: Page, name: string): Promise<AccessibilityReport> {
  const javaScriptOn = await pageRunsScripts(page);
  const { url, violations } = javaScriptOn ? { url: page.url(), violations: await runAxe(page) } : await runAxeOnUrlWithJavaScript(page);
  const failing = violations.filter((violation) => FAILING_IMPACTS.has(violation.impact));
  assert.ok(
    failing.length === 0,
    `${name}: ${failing.length} serious or critical accessibility violation(s) at ${url}${javaScriptOn ? '' : ' (checked with JavaScript on: the page had it off)'}:\n${failing.map(describeViolation).join('\n')}`,
  );
  return { checkedUrl: url, pageHadJavaScriptOff: !javaScriptOn, violations };
}
