/**
 * The integration guide on each app's page, built from the app's real values (issuer, client id, first
 * redirect URI):
 *
 * - copy-paste integrations for the libraries people use (src/developer/snippets/): Node openid-client,
 *   Passport and Auth.js, Python Authlib, Go go-oidc, Java Spring Security, Ruby OmniAuth, PHP; each with
 *   its environment block, `openid email profile`, PKCE (RFC 7636, S256) where the library supports it;
 * - the raw HTTP flow with curl: the authorize URL, the token exchange in both client authentication styles
 *   (client_secret_basic and client_secret_post, RFC 6749 §2.3.1), the userinfo call.
 *
 * The secret itself is never here: Latch does not have it, and the code reads it from the environment. Only
 * the one-time secret page fills it in (`environmentBlock` with the secret). A public client (a single-page
 * or mobile app) has none: its guide shows the forms that make sense without one.
 */
import type { IntegrationGuide } from '../views/pages/developer-app-page.js';
import { rubyOmniAuthSnippet, phpSnippet, springSecuritySnippet } from './snippets/java-ruby-php.js';
import { authJsSnippet, passportSnippet } from './snippets/node-frameworks.js';
import { nodeOpenidClientSnippet } from './snippets/node-openid-client.js';
import { goOidcSnippet, pythonAuthlibSnippet } from './snippets/python-go.js';
import { environmentLines, type IntegrationSnippet, type SnippetContext } from './snippets/snippet.js';

export interface GuideClient {
  clientId: string;
  redirectUris: string[];
  tokenEndpointAuthMethod?: 'client_secret_basic' | 'none';
}

/** The scopes every snippet asks for: OpenID Connect, with the email and the profile (docs/protocol-decisions.md "Scope"). */
export const SNIPPET_SCOPE = 'openid email profile';

function snippetContext(issuer: string, client: GuideClient): SnippetContext {
  return {
    issuer,
    clientId: client.clientId,
    redirectUri: client.redirectUris[0] ?? 'https://your-app.example/callback',
    isPublic: client.tokenEndpointAuthMethod === 'none',
  };
}

/**
 * The environment block the snippets read. On the one-time secret page (`clientSecret` given) it carries
 * the secret, so that it can be pasted into a .env file at once; everywhere else a placeholder.
 */
export function buildEnvironmentBlock(issuer: string, client: GuideClient, clientSecret?: string): string {
  return environmentLines(snippetContext(issuer, client), clientSecret).join('\n');
}

/** The library snippets for this app, in the order shown. A public client gets those that work without a secret. */
export function buildSnippets(issuer: string, client: GuideClient): IntegrationSnippet[] {
  const context = snippetContext(issuer, client);
  if (context.isPublic) return [nodeOpenidClientSnippet(context), goOidcSnippet(context)];
  return [
    nodeOpenidClientSnippet(context),
    passportSnippet(context),
    authJsSnippet(context),
    pythonAuthlibSnippet(context),
    goOidcSnippet(context),
    springSecuritySnippet(context),
    rubyOmniAuthSnippet(context),
    phpSnippet(context),
  ];
}

/** Why a public client's guide has fewer snippets (told in the page's language). */
export const PUBLIC_CLIENT_SNIPPETS_NOTE = { key: 'developer.guide.publicNote' } as const;

export function buildIntegrationGuide(issuer: string, client: GuideClient): IntegrationGuide {
  const context = snippetContext(issuer, client);
  const { redirectUri } = context;
  const authorize = new URL(`${issuer}/oauth2/authorize`);
  authorize.search = new URLSearchParams({
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: redirectUri,
    scope: SNIPPET_SCOPE,
    state: 'STATE',
    code_challenge: 'CODE_CHALLENGE',
    code_challenge_method: 'S256',
  }).toString();
  const tokenUrl = `${issuer}/oauth2/token`;
  const commonTokenLines = ['  -d grant_type=authorization_code', '  --data-urlencode "code=$CODE"', `  --data-urlencode "redirect_uri=${redirectUri}"`, '  --data-urlencode "code_verifier=$CODE_VERIFIER"'];
  return {
    authorizeUrl: authorize.href,
    tokenCurlBasic: [`curl -X POST ${tokenUrl} \\`, `  -u "${client.clientId}:$LATCH_CLIENT_SECRET" \\`, ...commonTokenLines.map((l, i, all) => (i < all.length - 1 ? `${l} \\` : l))].join('\n'),
    tokenCurlPost: [
      `curl -X POST ${tokenUrl} \\`,
      `  -d client_id=${client.clientId} \\`,
      '  --data-urlencode "client_secret=$LATCH_CLIENT_SECRET" \\',
      ...commonTokenLines.map((l, i, all) => (i < all.length - 1 ? `${l} \\` : l)),
    ].join('\n'),
    userinfoCurl: `curl ${issuer}/oauth2/userinfo \\\n  -H "Authorization: Bearer $ACCESS_TOKEN"`,
    ...(context.isPublic && {
      tokenFetchPublic: [
        `const response = await fetch('${tokenUrl}', {`,
        "  method: 'POST',",
        '  body: new URLSearchParams({',
        "    grant_type: 'authorization_code',",
        '    code,',
        `    redirect_uri: '${redirectUri}',`,
        `    client_id: '${client.clientId}',`,
        '    code_verifier: codeVerifier,',
        '  }),',
        '});',
      ].join('\n'),
    }),
    environment: buildEnvironmentBlock(issuer, client),
    snippets: buildSnippets(issuer, client),
    ...(context.isPublic && { snippetsNote: PUBLIC_CLIENT_SNIPPETS_NOTE }),
  };
}
