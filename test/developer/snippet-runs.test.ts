/**
 * The Python and Ruby integration snippets, run as shown (issue 22 item 2), with Debian's packages.
 *
 * Each test registers an app in the developer console of a Latch this file starts (SQLite), takes the snippet
 * and its environment block from the rendered app page (by their stable ids), fills in what the page tells the
 * developer to fill in (the secret from the one-time page, a random session key), writes the files into a fresh
 * folder and runs them with Debian's interpreter (/usr/bin/python3, /usr/bin/ruby) as a real web server on a free
 * port. The test is the browser: it opens the snippet app's sign-in, follows it to Latch, signs in, consents, goes
 * back to the snippet's callback and reads the page the snippet shows the signed-in person. A snippet that drifts
 * from Latch (an endpoint, a scope, PKCE, client authentication, the id_token's claims) fails here.
 *
 * Each test says it is skipped when its interpreter or library is missing (.ci/run installs them:
 * python3-authlib python3-flask python3-requests, ruby ruby-omniauth-oauth2 ruby-sinatra ruby-webrick).
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parse as parseHtml, type HTMLElement } from 'node-html-parser';
import { TestBrowser } from '../helpers/browser.js';
import { authorize } from '../helpers/oauth-flow.js';
import { followRedirect, signedInBrowser, submitForm } from '../helpers/pages.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const PYTHON = '/usr/bin/python3';
const RUBY = '/usr/bin/ruby';

/** false when `interpreter` can load every library, else why the test is skipped. */
function skipUnless(interpreter: string, args: string[], packages: string): false | string {
  const probe = spawnSync(interpreter, args, { encoding: 'utf8', timeout: 20_000 });
  if (probe.status === 0) return false;
  const why = probe.error ? `${interpreter} is not installed` : (probe.stderr.trim().split('\n').at(-1) ?? `exit ${probe.status}`);
  return `${why}: apt-get install -y --no-install-recommends ${packages} (.ci/run does)`;
}

const skipPython = skipUnless(PYTHON, ['-c', 'import authlib, flask, requests'], 'python3-authlib python3-flask python3-requests');
const skipRuby = skipUnless(RUBY, ['-e', 'require "omniauth-oauth2"; require "sinatra/base"; require "webrick"'], 'ruby ruby-omniauth-oauth2 ruby-sinatra ruby-webrick');

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

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

interface RunningSnippet {
  output(): string;
  stop(): Promise<void>;
}

/**
 * Writes `files` into a fresh folder and runs `command` there with only PATH and `environment` (the snippet must
 * get everything else from its environment block, as the page says); resolves once `port` accepts connections.
 */
async function runSnippet(command: string, args: string[], files: Record<string, string>, environment: Record<string, string>, port: number): Promise<RunningSnippet> {
  const folder = mkdtempSync(join(tmpdir(), 'latch-snippet-'));
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(dirname(join(folder, name)), { recursive: true });
    writeFileSync(join(folder, name), content);
  }
  const child: ChildProcess = spawn(command, args, { cwd: folder, env: { PATH: '/usr/bin:/bin', ...environment }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(folder, { recursive: true, force: true });
  };
  const deadline = Date.now() + 20_000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || child.signalCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`the snippet did not start listening on port ${port}:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { output: () => output, stop };
}

describe('the Python and Ruby snippets, run as shown with Debian’s packages', () => {
  let server: TestServer;
  let developer: TestBrowser;

  before(async () => {
    if (skipPython && skipRuby) return;
    server = await startTestServer();
    const { user, password } = await server.createUser();
    developer = await signedInBrowser(server, user.email, password);
  });
  after(async () => server?.stop());

  /** Registers a web app in the console: its rendered app page, and the one-time page's environment block. */
  async function registerApp(name: string, redirectUri: string) {
    const registered = await followRedirect(
      developer,
      server.baseUrl,
      await submitForm(developer, server.baseUrl, '/developer', '/developer/apps', { name, redirect_uris: redirectUri, homepage_url: '', logo_url: '', app_type: 'web' }),
    );
    assert.equal(registered.status, 200, registered.body.slice(0, 400));
    const secretPage = parsePage(registered.body);
    const clientId = secretPage.querySelector('#client_id')?.getAttribute('value');
    const clientSecret = secretPage.querySelector('#client_secret')?.getAttribute('value');
    assert.ok(clientId && clientSecret);
    const appPage = await developer.request(`${server.baseUrl}/developer/apps/${clientId}`);
    assert.equal(appPage.status, 200);
    return { clientId, clientSecret, appPage: appPage.body, oneTimeEnvironment: parseEnvironment(textById(registered.body, 'secret_env')) };
  }

  /** The snippet's environment block from the app page, filled in as its comments say. */
  function filledEnvironment(block: string, oneTime: Record<string, string>, clientSecret: string): Record<string, string> {
    const environment = parseEnvironment(block);
    assert.equal(environment.LATCH_CLIENT_SECRET, 'paste-your-client-secret-here');
    for (const [key, value] of Object.entries(oneTime)) {
      if (key !== 'LATCH_CLIENT_SECRET') assert.equal(environment[key], value, `${key} as on the one-time page`);
    }
    return { ...environment, LATCH_CLIENT_SECRET: clientSecret };
  }

  test('Python: the Authlib with Flask snippet runs with /usr/bin/python3 as a real Flask server and signs a user in', { skip: skipPython }, async () => {
    const appPort = await freePort();
    const redirectUri = `http://127.0.0.1:${appPort}/auth/callback`;
    const { clientSecret, appPage, oneTimeEnvironment } = await registerApp('Flask Snippet App', redirectUri);
    const code = textById(appPage, 'snippet-python-authlib');
    const environment = filledEnvironment(textById(appPage, 'snippet-python-authlib-env'), oneTimeEnvironment, clientSecret);
    assert.equal(environment.FLASK_SECRET_KEY, '', 'the block asks for a session key');
    // As the block's comment says: python3 -c "import secrets; print(secrets.token_urlsafe(32))".
    environment.FLASK_SECRET_KEY = randomBytes(32).toString('base64url');
    assert.equal(environment.AUTHLIB_INSECURE_TRANSPORT, '1', 'the test issuer is http://: the block must allow it');

    // `python3 app.py`, as the note says: the port comes from the redirect URL.
    const snippet = await runSnippet(PYTHON, ['app.py'], { 'app.py': code }, environment, appPort);
    try {
      const { user, password } = await server.createUser({ name: 'Flask <Person>' });
      const browser = new TestBrowser();
      const start = await browser.request(`http://127.0.0.1:${appPort}/login`);
      assert.equal(start.status, 302, `${start.body}\n${snippet.output()}`);
      const authorizeUrl = new URL(start.headers.get('location') ?? '');
      assert.equal(`${authorizeUrl.origin}${authorizeUrl.pathname}`, `${server.baseUrl}/oauth2/authorize`);
      assert.equal(authorizeUrl.searchParams.get('redirect_uri'), redirectUri);
      assert.equal(authorizeUrl.searchParams.get('scope'), 'openid email profile');
      assert.equal(authorizeUrl.searchParams.get('code_challenge_method'), 'S256');
      assert.ok(authorizeUrl.searchParams.get('code_challenge') && authorizeUrl.searchParams.get('state') && authorizeUrl.searchParams.get('nonce'), 'PKCE, state and nonce');

      const back = await authorize(browser, server.baseUrl, Object.fromEntries(authorizeUrl.searchParams), { email: user.email, password });
      assert.equal(`${back.origin}${back.pathname}`, redirectUri);
      const signedIn = await browser.request(back.href);
      assert.equal(signedIn.status, 200, `${signedIn.body}\n${snippet.output()}`);
      assert.equal(signedIn.body, `Signed in as ${user.email} (Flask &lt;Person&gt;, sub ${user.id})`);

      // Authlib's state is single-use: the same callback again is refused, not signed in twice.
      const replay = await browser.request(back.href);
      assert.notEqual(replay.status, 200, replay.body);
    } finally {
      await snippet.stop();
    }
  });

  test('Ruby: the OmniAuth (omniauth-oauth2) with Sinatra snippet runs with /usr/bin/ruby as a real server and signs a user in', { skip: skipRuby }, async () => {
    const appPort = await freePort();
    const redirectUri = `http://127.0.0.1:${appPort}/auth/latch/callback`;
    const { clientSecret, appPage, oneTimeEnvironment } = await registerApp('Sinatra Snippet App', redirectUri);
    const code = textById(appPage, 'snippet-ruby-omniauth');
    const environment = filledEnvironment(textById(appPage, 'snippet-ruby-omniauth-env'), oneTimeEnvironment, clientSecret);
    assert.equal(environment.SESSION_SECRET, '', 'the block asks for a session secret');
    // As the block's comment says: ruby -rsecurerandom -e "puts SecureRandom.hex(64)".
    environment.SESSION_SECRET = randomBytes(64).toString('hex');

    // `ruby app.rb`, as the note says: the port comes from the redirect URL.
    const snippet = await runSnippet(RUBY, ['app.rb'], { 'app.rb': code }, environment, appPort);
    try {
      const { user, password } = await server.createUser({ name: 'Sinatra <Person>' });
      const browser = new TestBrowser();
      const home = await browser.request(`http://127.0.0.1:${appPort}/`);
      assert.equal(home.status, 200, `${home.body}\n${snippet.output()}`);
      const form = parsePage(home.body).querySelector('form[action="/auth/latch"]');
      const token = form?.querySelector('input[name="authenticity_token"]')?.getAttribute('value');
      assert.ok(form?.getAttribute('method') === 'post' && token, home.body);

      // OmniAuth 2 refuses to start without the form's CSRF token.
      const forged = await new TestBrowser().request(`http://127.0.0.1:${appPort}/auth/latch`, { form: { authenticity_token: token } });
      assert.match(forged.headers.get('location') ?? '', /\/auth\/failure\?message=authenticity_error/, 'a POST without the session that goes with the token starts no sign-in');

      const start = await browser.request(`http://127.0.0.1:${appPort}/auth/latch`, { form: { authenticity_token: token } });
      assert.equal(start.status, 302, `${start.body}\n${snippet.output()}`);
      const authorizeUrl = new URL(start.headers.get('location') ?? '');
      assert.equal(`${authorizeUrl.origin}${authorizeUrl.pathname}`, `${server.baseUrl}/oauth2/authorize`);
      assert.equal(authorizeUrl.searchParams.get('redirect_uri'), redirectUri);
      assert.equal(authorizeUrl.searchParams.get('scope'), 'openid email profile');
      assert.equal(authorizeUrl.searchParams.get('code_challenge_method'), 'S256');
      assert.ok(authorizeUrl.searchParams.get('code_challenge') && authorizeUrl.searchParams.get('state'), 'PKCE and state');

      const back = await authorize(browser, server.baseUrl, Object.fromEntries(authorizeUrl.searchParams), { email: user.email, password });
      assert.equal(`${back.origin}${back.pathname}`, redirectUri);
      const callback = await browser.request(back.href);
      assert.equal(callback.status, 302, `${callback.body}\n${snippet.output()}`);
      assert.equal(new URL(callback.headers.get('location') ?? '', back).pathname, '/');
      const signedIn = await browser.request(`http://127.0.0.1:${appPort}/`);
      assert.equal(signedIn.status, 200);
      assert.equal(signedIn.body, `Signed in as ${user.email} (Sinatra &lt;Person&gt;, sub ${user.id})`);

      // The state was single-use: the same callback again fails (OmniAuth's csrf_detected), no second sign-in.
      const replay = await new TestBrowser().request(back.href);
      assert.match(replay.headers.get('location') ?? '', /\/auth\/failure\?message=csrf_detected/);
    } finally {
      await snippet.stop();
    }
  });
});
