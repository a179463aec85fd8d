/**
 * The console's copy-paste integrations, tested as shown (issue 22 items 1 and 2).
 *
 * The Node openid-client snippet is taken from the rendered app page (its <code> block by its stable id),
 * written with its environment block into a folder under .tmp/ (inside the repository, so that Node resolves
 * the repository's node_modules: openid-client 6 from devDependencies), and run as a real process: a tiny
 * node:http app with /login and the redirect URL's path, listening on PORT. A user signs in through it with the
 * scripted browser against a Latch this file starts; the snippet's own app must answer with the user's email.
 * A snippet that drifts from Latch (a wrong endpoint, scope, PKCE or client authentication) fails here.
 *
 * Not run, and why:
 * - Python (Authlib with Flask) and Ruby (OmniAuth with Sinatra) are run by snippet-runs.test.ts, with Debian's
 *   packages (it says it is skipped when they are missing; .ci/run installs them).
 * - Go, Java (Spring Boot), PHP: no Go toolchain, no Maven/Gradle build or Spring jars, no PHP here.
 * - Passport and Auth.js: express, express-session, passport and next-auth are not dependencies of Latch and
 *   are not added for a test; their openid-client calls are the ones of the snippet that is run.
 * For all of them the unit-level test below checks that each carries the app's values and never a secret.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parse as parseHtml, type HTMLElement } from 'node-html-parser';
import { buildEnvironmentBlock, buildSnippets } from '../../src/developer/integration-guide.js';
import { SECRET_PLACEHOLDER } from '../../src/developer/snippets/snippet.js';
import { TestBrowser } from '../helpers/browser.js';
import { authorize } from '../helpers/oauth-flow.js';
import { signedInBrowser, followRedirect, submitForm } from '../helpers/pages.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/** Under the repository (gitignored), so that the snippet's `import 'openid-client'` finds its node_modules. */
const SCRATCH_ROOT = join(import.meta.dirname, '..', '..', '.tmp');

/** Parses a page so that elements inside <pre> are elements (node-html-parser keeps <pre> as raw text by default). */
function parsePage(html: string): HTMLElement {
  return parseHtml(html, { blockTextElements: { script: true, noscript: true, style: true } });
}

function textById(html: string, id: string): string {
  const element = parsePage(html).querySelector(`#${id}`);
  assert.ok(element, `no element #${id} on the page`);
  return element.textContent;
}

/** KEY=value lines of an environment block; comments and blank lines skipped. */
function parseEnvironment(block: string): Record<string, string> {
  const entries: Record<string, string> = {};
  for (const line of block.split('\n')) {
    if (line.trim() === '' || line.startsWith('#')) continue;
    const equals = line.indexOf('=');
    assert.ok(equals > 0, `not KEY=value: ${line}`);
    entries[line.slice(0, equals)] = line.slice(equals + 1);
  }
  return entries;
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => probe.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

interface RunningSnippet {
  process: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/** Runs `node --env-file=.env app.mjs` in a fresh folder, as the snippet's note says; resolves once it listens. */
async function runNodeSnippet(code: string, environment: string, port: number): Promise<RunningSnippet> {
  const folder = join(SCRATCH_ROOT, `integration-snippet-${randomBytes(6).toString('hex')}`);
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, 'app.mjs'), code);
  writeFileSync(join(folder, '.env'), `${environment}\n`);
  // Only PATH and PORT from here: the snippet must get everything else from its own .env.
  const child = spawn(process.execPath, ['--env-file=.env', 'app.mjs'], { cwd: folder, env: { PATH: process.env.PATH ?? '', PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(folder, { recursive: true, force: true });
  };
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the snippet did not start listening within 15 s:\n${output}`)), 15_000);
      child.stdout.on('data', () => {
        if (output.includes('Listening on port')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (status) => {
        clearTimeout(timer);
        reject(new Error(`the snippet exited (${status}) before listening:\n${output}`));
      });
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return { process: child, output: () => output, stop };
}

describe('integration snippets on the app page', () => {
  let server: TestServer;
  let developer: TestBrowser;

  before(async () => {
    server = await startTestServer();
    const { user, password } = await server.createUser();
    developer = await signedInBrowser(server, user.email, password);
  });
  after(async () => server.stop());

  async function registerApp(fields: { name: string; redirect_uris: string; app_type?: 'web' | 'public' }) {
    const response = await followRedirect(developer, server.baseUrl, await submitForm(developer, server.baseUrl, '/developer', '/developer/apps', { homepage_url: '', logo_url: '', app_type: 'web', ...fields }));
    assert.equal(response.status, 200, response.body.slice(0, 400));
    const page = parsePage(response.body);
    const clientId = page.querySelector('#client_id')?.getAttribute('value');
    assert.ok(clientId);
    return { clientId, clientSecret: page.querySelector('#client_secret')?.getAttribute('value') ?? null, secretPage: response };
  }

  for (const kind of ['web', 'public'] as const) {
    test(`the Node openid-client snippet, taken from the rendered page and run as its own process, signs a user in (${kind === 'web' ? 'web app with a secret' : 'public client'})`, async () => {
      const appPort = await freePort();
      const redirectUri = `http://127.0.0.1:${appPort}/callback`;
      const { clientId, clientSecret, secretPage } = await registerApp({ name: `Snippet App (${kind})`, redirect_uris: redirectUri, app_type: kind });
      assert.equal(clientSecret === null, kind === 'public');
      const appPage = await developer.request(`${server.baseUrl}/developer/apps/${clientId}`);
      assert.equal(appPage.status, 200);
      const code = textById(appPage.body, 'snippet-node-openid-client');
      assert.match(code, /allowInsecureRequests/, 'the test issuer is http://: the snippet must allow it');

      // The environment as the developer gets it: from the one-time page, with the secret filled in; the
      // app page's block is the same, with a placeholder where the secret goes.
      const environment = textById(secretPage.body, 'secret_env');
      const pageEnvironment = parseEnvironment(textById(appPage.body, 'snippet-node-openid-client-env'));
      const oneTimeEnvironment = parseEnvironment(environment);
      assert.deepEqual(pageEnvironment, { ...oneTimeEnvironment, ...(clientSecret !== null && { LATCH_CLIENT_SECRET: SECRET_PLACEHOLDER }) });
      assert.equal(oneTimeEnvironment.LATCH_CLIENT_SECRET, clientSecret ?? undefined);

      const snippet = await runNodeSnippet(code, environment, appPort);
      try {
        const { user, password } = await server.createUser({ name: 'Snippet Person' });
        const browser = new TestBrowser();
        const start = await browser.request(`http://127.0.0.1:${appPort}/login`);
        assert.equal(start.status, 302, `${start.body}\n${snippet.output()}`);
        const authorizeUrl = new URL(start.headers.get('location') ?? '');
        assert.equal(`${authorizeUrl.origin}${authorizeUrl.pathname}`, `${server.baseUrl}/oauth2/authorize`);
        assert.equal(authorizeUrl.searchParams.get('scope'), 'openid email profile');
        assert.equal(authorizeUrl.searchParams.get('code_challenge_method'), 'S256');
        assert.ok(authorizeUrl.searchParams.get('state') && authorizeUrl.searchParams.get('nonce'), 'state and nonce are sent');

        const back = await authorize(browser, server.baseUrl, Object.fromEntries(authorizeUrl.searchParams), { email: user.email, password });
        assert.equal(`${back.origin}${back.pathname}`, redirectUri);
        const signedIn = await browser.request(back.href);
        assert.equal(signedIn.status, 200, `${signedIn.body}\n${snippet.output()}`);
        assert.equal(signedIn.body, `Signed in as ${user.email} (Snippet Person, sub ${user.id})\n`);

        // The sign-in is single-use: a replay of the callback has no sign-in in progress any more.
        assert.equal((await browser.request(back.href)).status, 400);
      } finally {
        await snippet.stop();
      }
    });
  }

  test('every snippet on the page carries the app’s issuer, client id and redirect URI, and never the secret', async () => {
    const redirectUri = 'http://127.0.0.1:4567/auth/callback';
    for (const kind of ['web', 'public'] as const) {
      const { clientId, clientSecret } = await registerApp({ name: `Values App (${kind})`, redirect_uris: redirectUri, app_type: kind });
      const appPage = await developer.request(`${server.baseUrl}/developer/apps/${clientId}`);
      if (clientSecret !== null) assert.ok(!appPage.body.includes(clientSecret), 'the secret is never on the app page');
      const rawAuthorizeUrl = new URL(textById(appPage.body, 'guide_authorize'));
      assert.equal(rawAuthorizeUrl.searchParams.get('scope'), 'openid email profile', 'the raw flow asks for OpenID Connect too');
      const sections = parsePage(appPage.body).querySelectorAll('details.snippet');
      const ids = sections.map((section) => section.id);
      assert.deepEqual(
        ids,
        kind === 'web'
          ? ['guide-node-openid-client', 'guide-node-passport', 'guide-node-authjs', 'guide-python-authlib', 'guide-go-oidc', 'guide-java-spring-security', 'guide-ruby-omniauth', 'guide-php-openid-connect', 'guide-curl']
          : ['guide-node-openid-client', 'guide-go-oidc', 'guide-curl'],
      );
      assert.equal(sections[0]?.getAttribute('open'), '', 'the first one is open; all work without JavaScript');
      for (const section of sections) {
        const text = section.textContent;
        for (const value of [server.config.issuer, clientId, redirectUri]) assert.ok(text.includes(value), `${section.id} lacks ${value}`);
        assert.doesNotMatch(text, /latch_cs_/, `${section.id} carries no secret`);
        const blocks = section.querySelectorAll('pre > code');
        if (section.id !== 'guide-curl') assert.ok(blocks.length >= 2, `${section.id}: an environment block and code, each in <pre><code>`);
        for (const block of blocks) assert.ok(section.querySelector(`button.copy[data-copy="${block.id}"]`), `${section.id}: a copy button for #${block.id}`);
        if (kind === 'public') assert.doesNotMatch(text, /LATCH_CLIENT_SECRET/, `${section.id}: a public client has no secret`);
      }
    }
  });

  test('the snippets allow http only for an http issuer, and ask for openid email profile with PKCE', () => {
    const client = { clientId: 'abc123', redirectUris: ['https://app.example.com/cb'], tokenEndpointAuthMethod: 'client_secret_basic' as const };
    const secure = buildSnippets('https://id.example.com', client);
    const local = buildSnippets('http://localhost:3000', client);
    const node = (snippets: typeof secure) => snippets.find((s) => s.id === 'node-openid-client')?.files[0]?.code ?? '';
    assert.doesNotMatch(node(secure), /allowInsecureRequests/);
    assert.match(node(local), /\/\/ Your issuer is http:\/\/ \(a local Latch\): openid-client 6 refuses http\n.*unless told to allow it\. Remove this line once the issuer is https\.\n\s*\{ execute: \[client\.allowInsecureRequests\] \},/);
    assert.doesNotMatch(secure.find((s) => s.id === 'python-authlib')?.environment ?? '', /AUTHLIB_INSECURE_TRANSPORT/);
    assert.match(local.find((s) => s.id === 'python-authlib')?.environment ?? '', /^AUTHLIB_INSECURE_TRANSPORT=1$/m);
    for (const snippet of [...secure, ...local]) {
      const code = snippet.files.map((file) => file.code).join('\n');
      assert.match(code, /openid[ ,'"\]]+email[ ,'"\]]+profile|ScopeOpenID, "email", "profile"|%i\[openid email profile\]/, `${snippet.id}: openid email profile`);
      assert.match(code, /S256|pkce|withPkce|Strategy/i, `${snippet.id}: PKCE`);
      assert.match(snippet.environment, /^LATCH_CLIENT_SECRET=paste-your-client-secret-here$/m, `${snippet.id}: the secret is a placeholder`);
      assert.match(code, /LATCH_CLIENT_SECRET/, `${snippet.id}: the code reads the secret from the environment`);
    }
  });

  test('the one-time secret page shows LATCH_CLIENT_SECRET=<the secret> in the environment block, uncached; rotation too', async () => {
    const { clientId, clientSecret, secretPage } = await registerApp({ name: 'Secret App', redirect_uris: 'https://app.example.com/cb' });
    assert.ok(clientSecret);
    assert.equal(secretPage.headers.get('cache-control'), 'no-store');
    const environment = textById(secretPage.body, 'secret_env');
    assert.ok(environment.split('\n').includes(`LATCH_CLIENT_SECRET=${clientSecret}`), environment);
    assert.equal(environment, buildEnvironmentBlock(server.config.issuer, { clientId, redirectUris: ['https://app.example.com/cb'] }, clientSecret));
    assert.ok(environment.includes(`LATCH_ISSUER=${server.config.issuer}\nLATCH_CLIENT_ID=${clientId}\n`));
    assert.match(environment, /^LATCH_REDIRECT_URI=https:\/\/app\.example\.com\/cb$/m);

    const path = `/developer/apps/${clientId}`;
    const rotated = await followRedirect(developer, server.baseUrl, await submitForm(developer, server.baseUrl, path, `${path}/secret`, { grace: 'none' }));
    assert.equal(rotated.status, 200);
    assert.equal(rotated.headers.get('cache-control'), 'no-store');
    const newSecret = parsePage(rotated.body).querySelector('#client_secret')?.getAttribute('value');
    assert.ok(newSecret && newSecret !== clientSecret);
    assert.ok(textById(rotated.body, 'secret_env').split('\n').includes(`LATCH_CLIENT_SECRET=${newSecret}`));
    assert.ok(!(await developer.request(`${server.baseUrl}${path}`)).body.includes(newSecret), 'and never again');
  });
});
