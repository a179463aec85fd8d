/** `latch client …`: register and change clients from the command line (docs/protocol-decisions.md "Command line"). */
import { parseArgs } from 'node:util';
import { recordCommandLineEvent } from '../audit/audit-log.js';
import {
  addRedirectUri,
  registerClientOfAnyKind,
  removeRedirectUri,
  rotateClientSecret,
  setRefreshLifetimes,
  type RegistrationPolicy,
} from '../clients/client-registration.js';
import { CLIENT_GRANT_TYPES, isClientGrantType } from '../clients/client-kind-policy.js';
import { isSigningAlgorithm, SIGNING_ALGORITHMS } from '../crypto/signing-algorithms.js';
import type { Client, Storage } from '../storage/storage.js';
import { printFields, printJson, UsageError } from './output.js';
import type { Terminal } from './terminal.js';

export const CLIENT_USAGE = `latch client create --name NAME --redirect-uri URI [--redirect-uri URI …] [--homepage-url URL] [--id-token-alg RS256|ES256|EdDSA]
                    [--post-logout-redirect-uri URI …] [--backchannel-logout-uri URI] [--public]
                    [--grant-type authorization_code|refresh_token|client_credentials|urn:ietf:params:oauth:grant-type:device_code …] [--scope "SCOPE …"]
                    [--refresh-token-idle-seconds N] [--refresh-token-max-seconds N] [--require-mfa] [--json]
latch client list [--json]
latch client show CLIENT_ID [--json]
latch client add-redirect-uri CLIENT_ID URI
latch client remove-redirect-uri CLIENT_ID URI
latch client rotate-secret CLIENT_ID [--grace-seconds N] [--json]
latch client set-require-mfa CLIENT_ID on|off [--json]
latch client set-refresh-lifetimes CLIENT_ID [--refresh-token-idle-seconds N|default] [--refresh-token-max-seconds N|default] [--json]
latch client delete CLIENT_ID`;

/** What kind of client it is, in RFC 7591 §2 names: how it authenticates, its grants, a service's scopes. */
function kindFields(client: Client) {
  return { token_endpoint_auth_method: client.tokenEndpointAuthMethod, grant_types: client.grantTypes, scope: client.scope.join(' ') };
}

/** The client's own refresh-token lifetimes; null where the deployment's apply (LATCH_REFRESH_TOKEN_*_SECONDS). */
function lifetimeFields(client: Client) {
  return { refresh_token_idle_seconds: client.refreshTokenIdleSeconds, refresh_token_max_seconds: client.refreshTokenMaxSeconds };
}

/** `--refresh-token-…-seconds`: a whole number of seconds, or `default` (null: the deployment's); undefined when not given. */
function lifetimeOption(name: string, value: string | undefined): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === 'default') return null;
  if (!/^\d+$/.test(value)) throw new UsageError(`--${name} must be a whole number of seconds, or "default" for the deployment's`);
  return Number(value);
}

function describeClient(client: Client) {
  return {
    client_id: client.clientId,
    name: client.name,
    redirect_uris: client.redirectUris,
    homepage_url: client.homepageUrl,
    id_token_signed_response_alg: client.idTokenSignedResponseAlg,
    post_logout_redirect_uris: client.postLogoutRedirectUris,
    backchannel_logout_uri: client.backchannelLogoutUri,
    ...kindFields(client),
    ...lifetimeFields(client),
    require_mfa: client.requireMfa,
    created_at: client.createdAt.toISOString(),
  };
}

export async function runClientCommand(args: string[], storage: Storage, policy: RegistrationPolicy, terminal: Terminal): Promise<void> {
  const [subcommand, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      'redirect-uri': { type: 'string', multiple: true },
      'post-logout-redirect-uri': { type: 'string', multiple: true },
      'backchannel-logout-uri': { type: 'string' },
      'homepage-url': { type: 'string' },
      'id-token-alg': { type: 'string' },
      'grace-seconds': { type: 'string' },
      'refresh-token-idle-seconds': { type: 'string' },
      'refresh-token-max-seconds': { type: 'string' },
      public: { type: 'boolean', default: false },
      'require-mfa': { type: 'boolean', default: false },
      'grant-type': { type: 'string', multiple: true },
      scope: { type: 'string', multiple: true },
      json: { type: 'boolean', default: false },
    },
  });
  const clientIdArg = () => {
    const id = positionals[0];
    if (!id) throw new UsageError(`latch client ${subcommand} needs a CLIENT_ID`);
    return id;
  };

  switch (subcommand) {
    case 'create': {
      if (!values.name) throw new UsageError('latch client create needs --name NAME');
      const grantTypes = values['grant-type']?.flatMap((value) => value.split(/[\s,]+/)).filter((value) => value !== '');
      const isService = grantTypes !== undefined && !grantTypes.includes('authorization_code');
      if (!values['redirect-uri']?.length && !isService) throw new UsageError('latch client create needs at least one --redirect-uri URI (a service with only --grant-type client_credentials, or a device app with only urn:ietf:params:oauth:grant-type:device_code, needs none)');
      const idTokenAlg = values['id-token-alg'];
      if (idTokenAlg !== undefined && !isSigningAlgorithm(idTokenAlg)) throw new UsageError(`--id-token-alg must be one of ${SIGNING_ALGORITHMS.join(', ')}`);
      const unknownGrant = grantTypes?.find((grant) => !isClientGrantType(grant));
      if (unknownGrant !== undefined) throw new UsageError(`--grant-type ${unknownGrant} is not a grant Latch supports; use ${CLIENT_GRANT_TYPES.join(', ')}`);
      const { client, clientSecret } = await registerClientOfAnyKind(
        storage,
        {
          isPublic: values.public,
          ...(grantTypes !== undefined && { grantTypes: grantTypes.filter(isClientGrantType) }),
          scope: (values.scope ?? []).flatMap((value) => value.split(' ')).filter((value) => value !== ''),
          name: values.name,
          redirectUris: values['redirect-uri'] ?? [],
          homepageUrl: values['homepage-url'] ?? null,
          ...(idTokenAlg !== undefined && { idTokenSignedResponseAlg: idTokenAlg }),
          postLogoutRedirectUris: values['post-logout-redirect-uri'] ?? [],
          backchannelLogoutUri: values['backchannel-logout-uri'] ?? null,
          refreshTokenIdleSeconds: lifetimeOption('refresh-token-idle-seconds', values['refresh-token-idle-seconds']) ?? null,
          refreshTokenMaxSeconds: lifetimeOption('refresh-token-max-seconds', values['refresh-token-max-seconds']) ?? null,
          requireMfa: values['require-mfa'],
        },
        policy,
      );
      await recordCommandLineEvent(storage, { type: 'client.created', clientId: client.clientId, details: { name: client.name } });
      // Exactly these fields, an interface scripts rely on (docs/protocol-decisions.md "Command line"); `latch
      // client show` also shows id_token_signed_response_alg.
      // A public client has no secret, so none is printed (RFC 7591 §3.2.1 leaves client_secret out too).
      const result = {
        client_id: client.clientId,
        ...(clientSecret !== null && { client_secret: clientSecret }),
        name: client.name,
        redirect_uris: client.redirectUris,
        // OIDC registration metadata (RP-Initiated Logout 1.0 §3.1, Back-Channel Logout 1.0 §2.2).
        post_logout_redirect_uris: client.postLogoutRedirectUris,
        backchannel_logout_uri: client.backchannelLogoutUri,
        ...kindFields(client),
        ...lifetimeFields(client),
        require_mfa: client.requireMfa,
      };
      if (values.json) printJson(terminal.stdout, result);
      else {
        printFields(terminal.stdout, result);
        terminal.stderr.write(
          clientSecret === null
            ? '\nA public client has no secret: the app sends its client_id alone and must use PKCE (S256).\n'
            : '\nThe client secret is shown only now. Keep it in your back end (an environment variable), never in a browser or in source code.\n',
        );
      }
      return;
    }
    case 'list': {
      const clients = (await storage.clients.list()).map(describeClient);
      if (values.json) printJson(terminal.stdout, clients);
      else if (clients.length === 0) terminal.stdout.write('No clients registered.\n');
      else for (const c of clients) terminal.stdout.write(`${c.client_id}  ${c.name}  ${c.redirect_uris.join(' ')}\n`);
      return;
    }
    case 'show': {
      const client = await storage.clients.findById(clientIdArg());
      if (!client) throw new UsageError(`No client with id ${clientIdArg()}`);
      if (values.json) printJson(terminal.stdout, describeClient(client));
      else printFields(terminal.stdout, describeClient(client));
      return;
    }
    case 'add-redirect-uri':
    case 'remove-redirect-uri': {
      const uri = positionals[1];
      if (!uri) throw new UsageError(`latch client ${subcommand} needs CLIENT_ID URI`);
      const client =
        subcommand === 'add-redirect-uri'
          ? await addRedirectUri(storage, clientIdArg(), uri, policy)
          : await removeRedirectUri(storage, clientIdArg(), uri);
      await recordCommandLineEvent(storage, { type: 'client.updated', clientId: client.clientId, details: { changed: ['redirect_uris'] } });
      if (values.json) printJson(terminal.stdout, describeClient(client));
      else printFields(terminal.stdout, { client_id: client.clientId, redirect_uris: client.redirectUris });
      return;
    }
    case 'rotate-secret': {
      const grace = Number(values['grace-seconds'] ?? '0');
      if (!Number.isInteger(grace) || grace < 0 || grace > 30 * 86400) throw new UsageError('--grace-seconds must be an integer from 0 to 2592000');
      const { client, clientSecret } = await rotateClientSecret(storage, clientIdArg(), grace);
      await recordCommandLineEvent(storage, { type: 'client.secret_rotated', clientId: client.clientId, details: { grace_seconds: grace } });
      const result = {
        client_id: client.clientId,
        client_secret: clientSecret,
        previous_secret_valid_until: client.previousSecretExpiresAt?.toISOString() ?? null,
      };
      if (values.json) printJson(terminal.stdout, result);
      else printFields(terminal.stdout, result);
      return;
    }
    case 'set-refresh-lifetimes': {
      const idle = lifetimeOption('refresh-token-idle-seconds', values['refresh-token-idle-seconds']);
      const max = lifetimeOption('refresh-token-max-seconds', values['refresh-token-max-seconds']);
      if (idle === undefined && max === undefined) {
        throw new UsageError('latch client set-refresh-lifetimes needs --refresh-token-idle-seconds and/or --refresh-token-max-seconds');
      }
      const client = await setRefreshLifetimes(storage, clientIdArg(), {
        ...(idle !== undefined && { refreshTokenIdleSeconds: idle }),
        ...(max !== undefined && { refreshTokenMaxSeconds: max }),
      });
      await recordCommandLineEvent(storage, { type: 'client.updated', clientId: client.clientId, details: { changed: ['refresh_token_lifetimes'] } });
      const result = { client_id: client.clientId, ...lifetimeFields(client) };
      if (values.json) printJson(terminal.stdout, result);
      else {
        printFields(terminal.stdout, result);
        terminal.stderr.write('\nThese apply to refresh tokens issued or rotated from now on; null means the deployment\'s default.\n');
      }
      return;
    }
    case 'set-require-mfa': {
      const setting = positionals[1];
      if (setting !== 'on' && setting !== 'off') throw new UsageError('latch client set-require-mfa needs CLIENT_ID on|off');
      const client = await storage.clients.findById(clientIdArg());
      if (!client) throw new UsageError(`No client with id ${clientIdArg()}`);
      await storage.clients.update(client.clientId, { requireMfa: setting === 'on' }, new Date());
      await recordCommandLineEvent(storage, { type: 'client.updated', clientId: client.clientId, details: { changed: ['require_mfa'] } });
      const result = { client_id: client.clientId, require_mfa: setting === 'on' };
      if (values.json) printJson(terminal.stdout, result);
      else printFields(terminal.stdout, result);
      return;
    }
    case 'delete': {
      const client = await storage.clients.findById(clientIdArg());
      if (!client || !(await storage.clients.delete(client.clientId))) throw new UsageError(`No client with id ${clientIdArg()}`);
      await recordCommandLineEvent(storage, { type: 'client.deleted', clientId: client.clientId, details: { name: client.name } });
      terminal.stdout.write(`Deleted client ${clientIdArg()}; its codes, tokens and consents are gone with it.\n`);
      return;
    }
    default:
      throw new UsageError(`Unknown command: latch client ${subcommand ?? ''}\n\n${CLIENT_USAGE}`);
  }
}
