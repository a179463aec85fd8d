/**
 * Two-step verification from a test's side: set up an authenticator app on the account page with the key the
 * page shows (codes computed by otpauth, as a phone would), and finish a sign-in with a code.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { parse as parseHtml } from 'node-html-parser';
import { Secret, TOTP } from 'otpauth';
import { inputValue, TestBrowser, type BrowserResponse } from './browser.js';
import { submitForm, valueById } from './pages.js';
import type { TestServer } from './test-server.js';

const PERIOD_MS = 30_000;

/** An authenticator app: codes for the secret, each time step handed out once (Latch accepts each once). */
export class TestAuthenticator {
  private lastStep = -1;
  constructor(readonly secret: string) {}

  codeAtStep(step: number): string {
    return new TOTP({ secret: Secret.fromBase32(this.secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate({ timestamp: step * PERIOD_MS });
  }

  /** A code Latch has not seen: this step's, or the next one's (accepted as one step of drift, RFC 6238 §5.2). */
  async freshCode(): Promise<string> {
    for (;;) {
      const current = Math.floor(Date.now() / PERIOD_MS);
      const step = Math.max(current, this.lastStep + 1);
      if (step <= current + 1) {
        this.lastStep = step;
        return this.codeAtStep(step);
      }
      await sleep(1000);
    }
  }

  /** Marks a step as seen (the code that confirmed the set-up). */
  used(step: number): void {
    this.lastStep = Math.max(this.lastStep, step);
  }
}

/** Sets up an app for the signed-in browser; returns it and the recovery codes shown once. */
export async function enrolAuthenticator(server: TestServer, browser: TestBrowser): Promise<{ app: TestAuthenticator; recoveryCodes: string[]; page: BrowserResponse }> {
  const page = await browser.request(`${server.baseUrl}/account/two-step`);
  assert.equal(page.status, 200);
  const app = new TestAuthenticator(valueById(page.body, 'totp-secret').replace(/\s/g, ''));
  const step = Math.floor(Date.now() / PERIOD_MS);
  app.used(step);
  const confirmed = await browser.request(`${server.baseUrl}/account/two-step/app`, {
    form: { _csrf: inputValue(page.body, '_csrf'), enrolment: inputValue(page.body, 'enrolment'), code: app.codeAtStep(step) },
  });
  assert.equal(confirmed.status, 200, `set-up not confirmed: ${confirmed.status}`);
  return { app, recoveryCodes: recoveryCodesOn(confirmed.body), page: confirmed };
}

/** The recovery codes shown on the page. */
export function recoveryCodesOn(html: string): string[] {
  return (parseHtml(html).querySelector('#recovery-codes')?.textContent ?? '').split('\n').map((line) => line.trim()).filter(Boolean);
}

/** Password first: returns the browser at the second step (the response of POST /login). */
export async function signInWithPassword(server: TestServer, browser: TestBrowser, email: string, password: string, returnTo = '/'): Promise<BrowserResponse> {
  const login = await browser.request(`${server.baseUrl}/login`);
  return browser.request(`${server.baseUrl}/login`, { form: { _csrf: inputValue(login.body, '_csrf'), return_to: returnTo, email, password } });
}

/** Posts a code on the second step's page (`method` app or recovery). */
export async function submitSecondFactor(server: TestServer, browser: TestBrowser, code: string, method: 'app' | 'recovery' = 'app'): Promise<BrowserResponse> {
  return submitForm(browser, server.baseUrl, method === 'app' ? '/login/two-step' : '/login/two-step?method=recovery', '/login/two-step', { method, code });
}
