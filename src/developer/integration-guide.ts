/**
 * The ready-to-paste integration guide on each app's page, built from the app's real values: the authorize
 * URL (with PKCE S256, RFC 7636), the token exchange with curl in both client authentication styles
 * (client_secret_basic and client_secret_post, RFC 6749 §2.3.1), the userinfo call, and the environment
 * variables a back end needs. The secret itself is never here: Latch does not have it. A public client (a
 * single-page or mobile app) has none: its guide shows the exchange as the app makes it, with client_id alone.
 */
import type { IntegrationGuide } from '../views/pages/developer-app-page.js';

export function buildIntegrationGuide(
  issuer: string,
  client: { clientId: string; redirectUris: string[]; tokenEndpointAuthMethod?: 'client_secret_basic' | 'none' },
): IntegrationGuide {
  const redirectUri = client.redirectUris[0] ?? 'https://your-app.example/callback';
  const authorize = new URL(`${issuer}/oauth2/authorize`);
  authorize.search = new URLSearchParams({
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: redirectUri,
    scope: 'profile',
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
    ...(client.tokenEndpointAuthMethod === 'none' && {
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
    environment: (client.tokenEndpointAuthMethod === 'none'
      ? [`LATCH_ISSUER=${issuer}`, `LATCH_CLIENT_ID=${client.clientId}`, `LATCH_REDIRECT_URI=${redirectUri}`]
      : [
          `LATCH_ISSUER=${issuer}`,
          `LATCH_CLIENT_ID=${client.clientId}`,
          '# The secret shown once when you registered the app or last rotated its secret.',
          '# Keep it in your back end only: never in a browser or mobile app, never in source control.',
          'LATCH_CLIENT_SECRET=paste-your-client-secret-here',
          `LATCH_REDIRECT_URI=${redirectUri}`,
        ]
    ).join('\n'),
  };
}
