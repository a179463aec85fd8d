/**
 * `latch resource …`: the APIs (resource servers) access tokens may be issued for (RFC 8707; issue 18 item 5;
 * README "APIs (resource servers)"). A client names one with `resource` at the authorization and token requests and
 * gets a JWT access token (RFC 9068) whose audience is its identifier, with the granted scopes it defines.
 */
import { parseArgs } from 'node:util';
import { recordCommandLineEvent } from '../audit/audit-log.js';
import { resourceIdentifierProblem, resourceScopeProblem } from '../oauth/request/resource.js';
import type { ResourceServer, Storage } from '../storage/storage.js';
import { printFields, printJson, UsageError } from './output.js';
import type { Terminal } from './terminal.js';

export const RESOURCE_USAGE = `latch resource create --identifier URL --scope S [--scope S …] [--name NAME] [--json]
latch resource list [--json]
latch resource delete URL`;

const MAX_SCOPES = 50;

function describe(resource: ResourceServer) {
  return { identifier: resource.identifier, name: resource.name, scope: resource.scope.join(' '), created_at: resource.createdAt.toISOString() };
}

export async function runResourceCommand(args: string[], storage: Storage, terminal: Terminal): Promise<void> {
  const [subcommand, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      identifier: { type: 'string' },
      scope: { type: 'string', multiple: true },
      name: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  switch (subcommand) {
    case 'create': {
      const identifier = values.identifier;
      if (identifier === undefined) throw new UsageError(`latch resource create needs --identifier URL (the API's address, as clients send it in resource)\n\n${RESOURCE_USAGE}`);
      const problem = resourceIdentifierProblem(identifier);
      if (problem !== null) throw new UsageError(`--identifier ${identifier} ${problem}`);
      // --scope "a b" and --scope a --scope b both work.
      const scope = [...new Set((values.scope ?? []).flatMap((value) => value.split(' ')).filter((value) => value !== ''))];
      if (scope.length === 0) throw new UsageError('latch resource create needs at least one --scope: the permissions the API defines, such as --scope read --scope write');
      if (scope.length > MAX_SCOPES) throw new UsageError(`At most ${MAX_SCOPES} scopes per API`);
      for (const value of scope) {
        const scopeProblem = resourceScopeProblem(value);
        if (scopeProblem !== null) throw new UsageError(`--scope ${value} ${scopeProblem}`);
      }
      const name = (values.name ?? new URL(identifier).host).trim();
      if (name === '' || name.length > 100) throw new UsageError('--name must be 1 to 100 characters');
      const resource: ResourceServer = { identifier, name, scope, createdAt: new Date() };
      if (!(await storage.resourceServers.insert(resource))) throw new UsageError(`An API with identifier ${identifier} is registered already (see latch resource list)`);
      await recordCommandLineEvent(storage, { type: 'resource.created', details: { resource: identifier, scope } });
      if (values.json) printJson(terminal.stdout, describe(resource));
      else printFields(terminal.stdout, describe(resource));
      return;
    }
    case 'list': {
      const resources = (await storage.resourceServers.list()).map(describe);
      if (values.json) printJson(terminal.stdout, resources);
      else if (resources.length === 0) terminal.stdout.write('No APIs registered. Add one with latch resource create.\n');
      else for (const resource of resources) terminal.stdout.write(`${resource.identifier}  ${resource.name}  ${resource.scope}\n`);
      return;
    }
    case 'delete': {
      const identifier = positionals[0];
      if (!identifier) throw new UsageError('latch resource delete needs the URL of the API (see latch resource list)');
      if (!(await storage.resourceServers.delete(identifier))) throw new UsageError(`No API with identifier ${identifier}`);
      await recordCommandLineEvent(storage, { type: 'resource.deleted', details: { resource: identifier } });
      terminal.stdout.write(`Deleted ${identifier}: new tokens for it are refused (invalid_target); JWTs issued already stay valid until they expire.\n`);
      return;
    }
    default:
      throw new UsageError(`Unknown command: latch resource ${subcommand ?? ''}\n\n${RESOURCE_USAGE}`);
  }
}
