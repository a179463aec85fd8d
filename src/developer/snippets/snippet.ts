/**
 * One copy-paste integration on an app's console page: the environment block it reads and its code, filled
 * with the app's issuer, client id and redirect URI. The secret is never in a snippet: the code reads it
 * from the environment, and the console does not have it (only the one-time secret page does).
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

export interface SnippetFile {
  /** Stable HTML id of the code block (tests find the block by it): `snippet-<snippet id>` for the main file. */
  id: string;
  /** The file name to save it as, e.g. `app.mjs`. */
  name: string;
  code: string;
}

export interface IntegrationSnippet {
  /** Stable id: `node-openid-client`, `python-authlib`, … */
  id: string;
  /** Library and language, e.g. "Node.js: openid-client 6". */
  title: string;
  /** The install command. */
  install: string;
  /** KEY=value lines (dotenv format), with the secret as a placeholder. Its block's id is `snippet-<id>-env`. */
  environment: string;
  files: SnippetFile[];
  /** Short notes shown under the title: where the callback is, how to run it. */
  notes: string[];
}

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
export function frameworkRedirectNote(context: SnippetContext, framework: string, redirectUri: string): string {
  return redirectUri === context.redirectUri
    ? `${framework} receives the sign-in at ${redirectUri}, this app's redirect URL.`
    : `${framework} receives the sign-in at ${redirectUri}: add it to this app's redirect URLs (Settings below), or set the path to your own.`;
}
