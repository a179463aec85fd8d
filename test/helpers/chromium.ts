/**
 * Debian's Chromium driven by playwright-core, for the browser tests: its headless shell
 * (/usr/bin/chromium-headless-shell, package chromium-headless-shell) when installed, else the full browser
 * (/usr/bin/chromium, package chromium). The headless shell is the same Chromium without the browser's own UI, and
 * what Playwright itself runs for headless tests; the test files under test/browser/ cost it 192 s of CPU against
 * 450 s for the full browser here (process accounting over the same files), which is a third of the suite's CPU.
 * LATCH_CHROMIUM_PATH names another. When neither is installed the suites say they are skipped (.ci/run installs
 * both).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import * as zlib from 'node:zlib';
import { chromium, type Browser, type Page } from 'playwright-core';

const DEBIAN_CHROMIUMS = ['/usr/bin/chromium-headless-shell', '/usr/bin/chromium'];
export const CHROMIUM_PATH = process.env.LATCH_CHROMIUM_PATH ?? DEBIAN_CHROMIUMS.find((path) => existsSync(path)) ?? '/usr/bin/chromium';

/** The `skip` option for a browser suite: false when Chromium is there, else the reason it is skipped. */
export const skipWithoutChromium: false | string = existsSync(CHROMIUM_PATH)
  ? false
  : `Chromium is not installed at ${CHROMIUM_PATH} (apt-get install -y chromium-headless-shell, or chromium): browser tests skipped`;

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    // No sandbox: CI runs as root in a container. The rest keep Chromium off the network and quiet.
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

export const SCREENSHOT_DIR = join(process.cwd(), 'test-artifacts', 'screenshots');

/**
 * False when LATCH_TEST_SCREENSHOTS=0: .ci/run sets it, as nobody looks at a CI machine's files and the suite's
 * 170 full-page screenshots cost Chromium about a minute of CPU per run. Nothing is asserted on them.
 */
const SCREENSHOTS_KEPT = process.env.LATCH_TEST_SCREENSHOTS !== '0';

/**
 * Saves a full-page screenshot under test-artifacts/screenshots/ (gitignored), for people to look at; nothing
 * when LATCH_TEST_SCREENSHOTS=0.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (!SCREENSHOTS_KEPT) return;
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}

/** A small solid-colour PNG (a real one: signature, IHDR, IDAT, IEND with CRCs), for avatar uploads. */
export function solidPng(width: number, height: number, rgb: [number, number, number]): Buffer {
  const crc32 = (zlib as unknown as { crc32(data: Buffer): number }).crc32;
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body) >>> 0);
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // truecolour RGB
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(width * 3).map((_, i) => rgb[i % 3] as number)]);
  const pixels = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(pixels)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
