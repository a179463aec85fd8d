/**
 * One copy-paste integration on an app's console page: the environment block it reads and its code, filled
 * with the app's issuer, client id and redirect URI. The secret is never in a snippet: the code reads it
 * from the environment, and the console does not have it (only the one-time secret page does). Code, commands
 * and the comments in them are the same in every language; the notes beside them are messages of the catalogue
 * ("snippet."), told in the page's language.
 */

/** What every snippet is built from: the app's real values. */
export interface SnippetContext {
  issuer: string;
  clientId: string;
  /** The app's first registered redirect URI. */
  redirectUri: string;
  /** A public client (token_endpoint_auth_method none): no secret, PKCE required. */
  isPublic: boolean;
}

import type { CatalogueText } from '../../i18n/translator.js';

// The shapes the console page renders are its view model (views/ imports no services).
export type { IntegrationSnippet, SnippetFile } from '../../views/pages/developer-app-page.js';

/** The http:// issuer of a local Latch: libraries that insist on https must be told to allow it. */
export function isHttpIssuer(issuer: string): boolean {
  return new URL(issuer).protocol === 'http:';
}

export const SECRET_PLACEHOLDER = 'paste-your-client-secret-here';

/**
 * The environment block every snippet reads. With `clientSecret` (only on the one-time secret page) the
 * secret is filled in; otherwise a placeholder and where to find it. A public client has no secret line.
 */
export function environmentLines(context: SnippetContext, clientSecret?: string): string[] {
  const lines = [`LATCH_ISSUER=${context.issuer}`, `LATCH_CLIENT_ID=${context.clientId}`];
  if (!context.isPublic) {
    if (clientSecret === undefined) {
      lines.push(
        '# The secret shown once when you registered the app or last rotated its secret.',
        '# Keep it in your back end only: never in a browser or mobile app, never in source control.',
        `LATCH_CLIENT_SECRET=${SECRET_PLACEHOLDER}`,
      );
    } else {
      lines.push('# Keep it in your back end only: never in a browser or mobile app, never in source control.', `LATCH_CLIENT_SECRET=${clientSecret}`);
    }
  }
  lines.push(`LATCH_REDIRECT_URI=${context.redirectUri}`);
  return lines;
}

/** The redirect URI a framework with a fixed callback path uses: the registered URI's origin and that path. */
export function frameworkRedirectUri(context: SnippetContext, path: string): string {
  return new URL(path, context.redirectUri).href;
}

/** A note telling the developer to register a framework's fixed callback URL, unless it is the registered one. */
export function frameworkRedirectNote(context: SnippetContext, framework: string, redirectUri: string): CatalogueText {
  return redirectUri === context.redirectUri
    ? { key: 'snippet.framework.receives', params: { framework, uri: redirectUri } }
    : { key: 'snippet.framework.add', params: { framework, uri: redirectUri } };
}
