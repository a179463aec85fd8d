/**
 * Branding (issue 19 item 6): the operator's product name, logo, accent colour, favicon and footer links, read
 * from `LATCH_BRAND_*` by config.ts. Every value is checked at start, so that a typo stops Latch with its name
 * instead of showing a broken page to everyone.
 */

export interface BrandSettings {
  /** The product name in the header, page titles, footer and mails (`LATCH_BRAND_NAME`, default `Latch`; 1–60 characters). */
  readonly name: string;
  /**
   * A logo shown before the name in the header (`LATCH_BRAND_LOGO_URL`, default none). An https:// URL: the pages'
   * CSP allows images from the page's own origin and https: only (http/security-headers.ts).
   */
  readonly logoUrl: string | null;
  /**
   * Buttons, links and the current-page mark (`LATCH_BRAND_ACCENT`, `#rgb` or `#rrggbb`, default `#0b5cd5`). White
   * text sits on it and it sits on white as link text, so it must reach WCAG 2 contrast 4.5:1 against both (1.4.3).
   */
  readonly accentColour: string;
  /** The browser tab's icon (`LATCH_BRAND_FAVICON_URL`, an https:// URL; default Latch's own, served at /favicon.svg). */
  readonly faviconUrl: string | null;
  /** Footer links (`LATCH_BRAND_PRIVACY_URL`, `LATCH_BRAND_TERMS_URL`, `LATCH_BRAND_HELP_URL`; default none). */
  readonly privacyUrl: string | null;
  readonly termsUrl: string | null;
  readonly helpUrl: string | null;
}

export const DEFAULT_ACCENT_COLOUR = '#0b5cd5';
/** The lightest background an accent-coloured link sits on (--wash in views/styles.ts). */
const LIGHTEST_BACKGROUND = '#f6f8fa';
/** WCAG 2 SC 1.4.3: normal-size text needs 4.5:1. */
const MINIMUM_CONTRAST = 4.5;

/** WCAG 2 relative luminance of `#rrggbb` (G18 / "relative luminance" in the WCAG 2.2 glossary). */
function relativeLuminance(hex: string): number {
  const channel = (offset: number) => {
    const value = Number.parseInt(hex.slice(offset, offset + 2), 16) / 255;
    return value <= 0.04045 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

/** The WCAG 2 contrast ratio of two `#rrggbb` colours, 1 to 21. */
export function contrastRatio(a: string, b: string): number {
  const [light, dark] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

/** `#abc` → `#aabbcc`, lower case; null when it is not a hex colour. */
function normaliseHexColour(raw: string): string | null {
  const value = raw.trim().toLowerCase();
  if (/^#[0-9a-f]{6}$/.test(value)) return value;
  if (/^#[0-9a-f]{3}$/.test(value)) return `#${[...value.slice(1)].map((digit) => digit + digit).join('')}`;
  return null;
}

export function parseBrand(env: NodeJS.ProcessEnv, options: { linksMayBeHttp: boolean }, problems: string[]): BrandSettings {
  const name = (env.LATCH_BRAND_NAME ?? '').trim() || 'Latch';
  // Control characters would reach mail subjects (header injection is nodemailer's to stop, but say it here).
  if (name.length > 60 || /[\u0000-\u001f\u007f]/.test(name)) {
    problems.push(`LATCH_BRAND_NAME must be 1 to 60 characters without control characters (got ${JSON.stringify(name.slice(0, 80))})`);
  }

  let accentColour = DEFAULT_ACCENT_COLOUR;
  const rawAccent = env.LATCH_BRAND_ACCENT;
  if (rawAccent !== undefined && rawAccent.trim() !== '') {
    const colour = normaliseHexColour(rawAccent);
    if (colour === null) {
      problems.push(`LATCH_BRAND_ACCENT must be a colour written #rgb or #rrggbb, e.g. #0b5cd5 (got "${rawAccent}")`);
    } else {
      const contrast = Math.min(contrastRatio(colour, '#ffffff'), contrastRatio(colour, LIGHTEST_BACKGROUND));
      if (contrast < MINIMUM_CONTRAST) {
        problems.push(
          `LATCH_BRAND_ACCENT ${colour} is too light: white button text on it and links in it on a light background reach ` +
            `${contrast.toFixed(2)}:1, and WCAG 2 asks for ${MINIMUM_CONTRAST}:1 (SC 1.4.3); choose a darker shade`,
        );
      } else {
        accentColour = colour;
      }
    }
  }

  const url = (variable: string, what: string, mayBeHttp: boolean): string | null => {
    const raw = (env[variable] ?? '').trim();
    if (raw === '') return null;
    let parsed: URL;
    try {
      parsed = new URL(raw);
    } catch {
      problems.push(`${variable} must be an absolute URL of ${what} (got "${raw}")`);
      return null;
    }
    const schemes = mayBeHttp ? ['https:', 'http:'] : ['https:'];
    if (!schemes.includes(parsed.protocol) || parsed.username !== '' || parsed.password !== '') {
      problems.push(`${variable} must be an ${mayBeHttp ? 'http:// or https://' : 'https://'} URL of ${what}, without a user name or password (got "${raw}")`);
      return null;
    }
    return parsed.href;
  };

  return {
    name,
    accentColour,
    // Images: https only, the one scheme besides the page's own origin that the pages' CSP lets load.
    logoUrl: url('LATCH_BRAND_LOGO_URL', 'the logo image', false),
    faviconUrl: url('LATCH_BRAND_FAVICON_URL', 'the favicon image', false),
    privacyUrl: url('LATCH_BRAND_PRIVACY_URL', 'the privacy policy', options.linksMayBeHttp),
    termsUrl: url('LATCH_BRAND_TERMS_URL', 'the terms of use', options.linksMayBeHttp),
    helpUrl: url('LATCH_BRAND_HELP_URL', 'the help page', options.linksMayBeHttp),
  };
}
