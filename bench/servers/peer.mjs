/**
 * The peer: node-oidc-provider 9 (the certified Node OpenID Provider), set up as its documentation shows,
 * with what Latch offers: one confidential client (client_secret_basic; a second registration of the same
 * client differs only in its id_token algorithm, for scenario d3), routes at /oauth2/*, discovery at
 * /.well-known/openid-configuration, RS256 and ES256 signing keys, and an in-memory adapter (its own
 * MemoryAdapter) whose store never evicts; run.mjs starts a fresh process of it for each scenario, so that a
 * store grown by the scenarios before does not slow it down.
 *
 * Refresh tokens (scenario g) as Latch issues them: the client may use the refresh_token grant, a grant with
 * offline_access gets one (the provider's default issueRefreshToken), and every refresh rotates
 * (rotateRefreshToken: true; the default rotates only some clients). Introspection (scenario h) is enabled, with
 * Latch's rule for who may introspect what: a client its own tokens.
 *
 * Run as a child process with an IPC channel: the bench asks it, between runs, to mint authorization codes,
 * access tokens and refresh tokens through the provider's own models (new provider.AuthorizationCode({...}).save()
 * with a Grant and a Session), exactly as its authorization and token endpoints would.
 */
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import http from 'node:http';
import Provider from 'oidc-provider';
import MemoryAdapter from 'oidc-provider/lib/adapters/memory_adapter.js';
import LRU from 'oidc-provider/lib/helpers/lru.js';
import { PEER_CLIENT, PEER_CLIENT_ES256 } from './peer-clients.mjs';

const ACCOUNT_ID = '1';
const ACCOUNT_CLAIMS = {
  sub: ACCOUNT_ID,
  email: 'bench@example.com',
  email_verified: true,
  name: 'Bench User',
  picture: 'https://images.example.com/avatar.png',
};

// The stock MemoryAdapter, over a store that never turns over during a run (the provider's own quick-start
// store keeps 1000 entries, and would lose minted codes).
const store = new LRU({ maxSize: Number.MAX_SAFE_INTEGER });
class RunLongMemoryAdapter extends MemoryAdapter {
  constructor(model) {
    super(model, store, 15); // 15 s: the provider's default clockTolerance, as its own store uses
  }
}

function privateJwk(type, options, alg) {
  const { privateKey } = generateKeyPairSync(type, options);
  return { ...privateKey.export({ format: 'jwk' }), kid: `${alg.toLowerCase()}-${randomUUID().slice(0, 8)}`, alg, use: 'sig' };
}

const port = Number(process.env.PORT ?? 0);
const server = http.createServer();
await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;

const clientMetadata = (client, alg) => ({
  client_id: client.client_id,
  client_secret: client.client_secret,
  redirect_uris: [client.redirect_uri],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'client_secret_basic',
  id_token_signed_response_alg: alg,
});

const provider = new Provider(issuer, {
  adapter: RunLongMemoryAdapter,
  clients: [clientMetadata(PEER_CLIENT, 'RS256'), clientMetadata(PEER_CLIENT_ES256, 'ES256')],
  jwks: { keys: [privateJwk('rsa', { modulusLength: 2048 }, 'RS256'), privateJwk('ec', { namedCurve: 'P-256' }, 'ES256')] },
  cookies: { keys: ['bench-peer-cookie-key-0123456789abcdef'] },
  claims: { openid: ['sub'], profile: ['name', 'picture'], email: ['email', 'email_verified'] },
  scopes: ['openid', 'offline_access', 'profile', 'email'],
  findAccount: async (_ctx, sub) => (sub === ACCOUNT_ID ? { accountId: sub, claims: async () => ({ ...ACCOUNT_CLAIMS }) } : undefined),
  features: {
    devInteractions: { enabled: false },
    // RFC 7662, as Latch answers it: a client may introspect the tokens issued to it, and no others.
    introspection: { enabled: true, allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId },
  },
  rotateRefreshToken: true,
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  // RefreshToken: Latch's idle lifetime (LATCH_REFRESH_TOKEN_IDLE_SECONDS' default).
  ttl: { AccessToken: 3600, AuthorizationCode: 60, Grant: 14 * 86400, Interaction: 3600, Session: 14 * 86400, IdToken: 3600, RefreshToken: 30 * 86400 },
  routes: {
    authorization: '/oauth2/authorize',
    token: '/oauth2/token',
    userinfo: '/oauth2/userinfo',
    jwks: '/oauth2/jwks',
    end_session: '/oauth2/session/end',
    revocation: '/oauth2/revoke',
    introspection: '/oauth2/introspect',
  },
});
if (process.env.BENCH_PEER_DEBUG) provider.on('grant.error', (_ctx, error) => process.stderr.write(`peer grant.error: ${error.error_detail ?? error.message}\n`));
provider.on('server_error', (_ctx, error) => process.stderr.write(`peer server_error: ${error.stack}\n`));

/**
 * The login and consent interaction, answered at once for the bench account: the peer has no account or
 * password store of its own, so sign-in cost is measured on Latch only (scenario f).
 */
async function interaction(request, response) {
  const details = await provider.interactionDetails(request, response);
  const { prompt, params, session } = details;
  if (prompt.name === 'login') {
    await provider.interactionFinished(request, response, { login: { accountId: ACCOUNT_ID } }, { mergeWithLastSubmission: false });
    return;
  }
  const grant = details.grantId
    ? await provider.Grant.find(details.grantId)
    : new provider.Grant({ accountId: session.accountId, clientId: params.client_id });
  if (prompt.details.missingOIDCScope) grant.addOIDCScope(prompt.details.missingOIDCScope.join(' '));
  if (prompt.details.missingOIDCClaims) grant.addOIDCClaims(prompt.details.missingOIDCClaims);
  for (const [indicator, scopes] of Object.entries(prompt.details.missingResourceScopes ?? {})) grant.addResourceScope(indicator, scopes.join(' '));
  const grantId = await grant.save();
  await provider.interactionFinished(request, response, { consent: { grantId } }, { mergeWithLastSubmission: true });
}

const callback = provider.callback();
server.on('request', (request, response) => {
  if (request.url.startsWith('/interaction/')) {
    interaction(request, response).catch((error) => {
      response.statusCode = 500;
      response.end(String(error.message));
    });
    return;
  }
  callback(request, response);
});
server.keepAliveTimeout = 60_000;

/** One code through the provider's own models, bound like one from its authorization endpoint. */
async function mintCode({ scope, clientId, redirectUri, nonce }) {
  const grant = new provider.Grant({ accountId: ACCOUNT_ID, clientId });
  grant.addOIDCScope(scope);
  const grantId = await grant.save();
  const session = new provider.Session({ accountId: ACCOUNT_ID, loginTs: Math.floor(Date.now() / 1000) });
  session.grantIdFor(clientId, grantId);
  await session.save(14 * 86400);
  const code = new provider.AuthorizationCode({
    accountId: ACCOUNT_ID,
    clientId,
    grantId,
    scope,
    redirectUri,
    authTime: session.loginTs,
    nonce,
    sessionUid: session.uid,
    expiresWithSession: true,
  });
  return code.save();
}

async function mintAccessToken({ scope, clientId }) {
  const grant = new provider.Grant({ accountId: ACCOUNT_ID, clientId });
  grant.addOIDCScope(scope);
  const grantId = await grant.save();
  const token = new provider.AccessToken({ accountId: ACCOUNT_ID, clientId, grantId, scope, gty: 'authorization_code' });
  return token.save();
}

/**
 * One refresh token as the token endpoint issues it from a code with offline_access: bound to a grant of the
 * scope, not to a session (offline access outlives it).
 */
async function mintRefreshToken({ scope, clientId }) {
  const grant = new provider.Grant({ accountId: ACCOUNT_ID, clientId });
  grant.addOIDCScope(scope);
  const grantId = await grant.save();
  const token = new provider.RefreshToken({ accountId: ACCOUNT_ID, clientId, grantId, scope, authTime: Math.floor(Date.now() / 1000), gty: 'authorization_code' });
  return token.save();
}

process.on('message', async (message) => {
  try {
    const values = [];
    if (message.type === 'mint-codes') {
      for (let i = 0; i < message.count; i++) values.push(await mintCode(message));
    } else if (message.type === 'mint-tokens') {
      for (let i = 0; i < message.count; i++) values.push(await mintAccessToken(message));
    } else if (message.type === 'mint-refresh-tokens') {
      for (let i = 0; i < message.count; i++) values.push(await mintRefreshToken(message));
    } else {
      throw new Error(`unknown message ${message.type}`);
    }
    process.send({ id: message.id, values });
  } catch (error) {
    process.send({ id: message.id, error: String(error.stack) });
  }
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
process.stdout.write(`listening on ${server.address().port}\n`);
