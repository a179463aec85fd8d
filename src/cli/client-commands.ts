/** `latch client …`: register and change clients from the command line (DESIGN "CLI"). */
import { parseArgs } from 'node:util';
import {
  addRedirectUri,
  registerClient,
  removeRedirectUri,
  rotateClientSecret,
  type RegistrationPolicy,
} from '../clients/client-registration.js';
import { isSigningAlgorithm, SIGNING_ALGORITHMS } from '../crypto/signing-algorithms.js';
import type { Client, Storage } from '../storage/storage.js';
import { printFields, printJson, UsageError } from './output.js';

export const CLIENT_USAGE = `latch client create --name NAME --redirect-uri URI [--redirect-uri URI …] [--homepage-url URL] [--id-token-alg RS256|ES256|EdDSA] [--json]
latch client list [--json]
latch client show CLIENT_ID [--json]
latch client add-redirect-uri CLIENT_ID URI
latch client remove-redirect-uri CLIENT_ID URI
latch client rotate-secret CLIENT_ID [--grace-seconds N] [--json]
latch client delete CLIENT_ID`;

function describeClient(client: Client) {
  return {
    client_id: client.clientId,
    name: client.name,
    redirect_uris: client.redirectUris,
    homepage_url: client.homepageUrl,
    id_token_signed_response_alg: client.idTokenSignedResponseAlg,
    created_at: client.createdAt.toISOString(),
  };
}

export async function runClientCommand(args: string[], storage: Storage, policy: RegistrationPolicy): Promise<void> {
  const [subcommand, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      'redirect-uri': { type: 'string', multiple: true },
      'homepage-url': { type: 'string' },
      'id-token-alg': { type: 'string' },
      'grace-seconds': { type: 'string' },
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
      if (!values['redirect-uri']?.length) throw new UsageError('latch client create needs at least one --redirect-uri URI');
      const idTokenAlg = values['id-token-alg'];
      if (idTokenAlg !== undefined && !isSigningAlgorithm(idTokenAlg)) throw new UsageError(`--id-token-alg must be one of ${SIGNING_ALGORITHMS.join(', ')}`);
      const { client, clientSecret } = await registerClient(
        storage,
        {
          name: values.name,
          redirectUris: values['redirect-uri'],
          homepageUrl: values['homepage-url'] ?? null,
          ...(idTokenAlg !== undefined && { idTokenSignedResponseAlg: idTokenAlg }),
        },
        policy,
      );
      // DESIGN "CLI": exactly these fields; `latch client show` also shows id_token_signed_response_alg.
      const result = { client_id: client.clientId, client_secret: clientSecret, name: client.name, redirect_uris: client.redirectUris };
      if (values.json) printJson(result);
      else {
        printFields(result);
        process.stderr.write('\nThe client secret is shown only now. Keep it in your back end (an environment variable), never in a browser or in source code.\n');
      }
      return;
    }
    case 'list': {
      const clients = (await storage.clients.list()).map(describeClient);
      if (values.json) printJson(clients);
      else if (clients.length === 0) process.stdout.write('No clients registered.\n');
      else for (const c of clients) process.stdout.write(`${c.client_id}  ${c.name}  ${c.redirect_uris.join(' ')}\n`);
      return;
    }
    case 'show': {
      const client = await storage.clients.findById(clientIdArg());
      if (!client) throw new UsageError(`No client with id ${clientIdArg()}`);
      if (values.json) printJson(describeClient(client));
      else printFields(describeClient(client));
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
      if (values.json) printJson(describeClient(client));
      else printFields({ client_id: client.clientId, redirect_uris: client.redirectUris });
      return;
    }
    case 'rotate-secret': {
      const grace = Number(values['grace-seconds'] ?? '0');
      if (!Number.isInteger(grace) || grace < 0 || grace > 30 * 86400) throw new UsageError('--grace-seconds must be an integer from 0 to 2592000');
      const { client, clientSecret } = await rotateClientSecret(storage, clientIdArg(), grace);
      const result = {
        client_id: client.clientId,
        client_secret: clientSecret,
        previous_secret_valid_until: client.previousSecretExpiresAt?.toISOString() ?? null,
      };
      if (values.json) printJson(result);
      else printFields(result);
      return;
    }
    case 'delete': {
      if (!(await storage.clients.delete(clientIdArg()))) throw new UsageError(`No client with id ${clientIdArg()}`);
      process.stdout.write(`Deleted client ${clientIdArg()}; its codes, tokens and consents are gone with it.\n`);
      return;
    }
    default:
      throw new UsageError(`Unknown command: latch client ${subcommand ?? ''}\n\n${CLIENT_USAGE}`);
  }
}
