/**
 * A stand-in for examples/client with the same interface (startExampleClient), used only until the example
 * client is in the repository: login → Latch → callback → token (Basic) → userinfo → a page with the user.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ClientAppOptions {
  issuer: string;
  clientId: string;
  clientSecret: string;
  port?: number;
  fetch?: typeof fetch;
}

export async function startTinyClient(options: ClientAppOptions): Promise<{ url: string; redirectUri: string; close(): Promise<void> }> {
  const doFetch = options.fetch ?? fetch;
  const attempts = new Map<string, string>();
  let signedIn: { name: string; email: string } | null = null;
  let redirectUri = '';
  const escape = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    res.setHeader('content-type', 'text/html; charset=utf-8');
    if (url.pathname === '/login') {
      const state = randomBytes(16).toString('base64url');
      const verifier = randomBytes(32).toString('base64url');
      attempts.set(state, verifier);
      const authorize = new URL(`${options.issuer}/oauth2/authorize`);
      authorize.search = new URLSearchParams({
        response_type: 'code', client_id: options.clientId, redirect_uri: redirectUri, scope: 'profile', state,
        code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256',
      }).toString();
      res.writeHead(302, { location: authorize.href }).end();
      return;
    }
    if (url.pathname === '/callback') {
      const verifier = attempts.get(url.searchParams.get('state') ?? '');
      if (!verifier) return void res.writeHead(400).end('<p id="error">state mismatch</p>');
      if (url.searchParams.get('error') === 'access_denied') return void res.writeHead(400).end('<h1>Sign-in failed</h1><p id="error">You did not allow the sign-in.</p>');
      const token = await doFetch(`${options.issuer}/oauth2/token`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from(`${options.clientId}:${options.clientSecret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'authorization_code', code: url.searchParams.get('code') ?? '', redirect_uri: redirectUri, code_verifier: verifier }),
      });
      const body = (await token.json()) as { user: { name: string; email: string } };
      signedIn = body.user;
      res.writeHead(303, { location: '/' }).end();
      return;
    }
    res.end(
      signedIn
        ? `<h1>Example app</h1><p id="signed-in">Signed in as <strong id="user-name">${escape(signedIn.name)}</strong> (<span id="user-email">${escape(signedIn.email)}</span>)</p>`
        : '<h1>Example app</h1><p>You are not signed in.</p><p><a href="/login">Sign in with Latch</a></p>',
    );
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  redirectUri = `${url}/callback`;
  return { url, redirectUri, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
