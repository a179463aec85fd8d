/**
 * The `latch` command line: serve, migrate, client …, user …. Returns the process exit code; errors a person
 * can fix are printed as one line, never a stack trace.
 */
import { UsageError } from './output.js';
import { processTerminal, type Terminal } from './terminal.js';

// Each command loads only what it needs: `latch client list` should not pay for the server's modules (Fastify,
// Redis, OpenTelemetry), and scripts run the CLI often. Loading them all took ~0.65 s of CPU per run.
const commands = {
  serve: () => import('./serve.js'),
  client: () => import('./client-commands.js'),
  user: () => import('./user-commands.js'),
  db: () => import('./db-commands.js'),
  keys: () => import('./key-commands.js'),
  events: () => import('./events-command.js'),
  webhook: () => import('./webhook-commands.js'),
  registrationToken: () => import('./registration-token-commands.js'),
  admin: () => import('./admin-commands.js'),
  resource: () => import('./resource-commands.js'),
  doctor: () => import('./doctor/doctor-command.js'),
  storage: () => import('../storage/open-storage.js'),
  config: () => import('../config.js'),
};

const MIGRATE_USAGE = 'latch migrate                     Apply database migrations and exit';

/** Each command's usage, in the order `latch help` prints them; `latch COMMAND --help` prints its own. */
const USAGES: ReadonlyArray<readonly [command: string, load: () => Promise<string>]> = [
  ['serve', async () => (await commands.serve()).SERVE_USAGE],
  ['migrate', async () => MIGRATE_USAGE],
  ['client', async () => (await commands.client()).CLIENT_USAGE],
  ['user', async () => (await commands.user()).USER_USAGE],
  ['admin', async () => (await commands.admin()).ADMIN_USAGE],
  ['db', async () => (await commands.db()).DB_USAGE],
  ['keys', async () => (await commands.keys()).KEYS_USAGE],
  ['events', async () => (await commands.events()).EVENTS_USAGE],
  ['webhook', async () => (await commands.webhook()).WEBHOOK_USAGE],
  ['registration-token', async () => (await commands.registrationToken()).REGISTRATION_TOKEN_USAGE],
  ['resource', async () => (await commands.resource()).RESOURCE_USAGE],
  ['doctor', async () => (await commands.doctor()).DOCTOR_USAGE],
];

async function usage(): Promise<string> {
  const texts = await Promise.all(USAGES.map(([, load]) => load()));
  return `Usage:\n${texts.join('\n')}`;
}

/** Errors a person can fix (bad input, configuration, a refused operation): printed as one line, exit code 2. */
async function isOperatorError(error: unknown): Promise<boolean> {
  const [accounts, clients, config, keyCache, keys, copy, file, webhooks] = await Promise.all([
    import('../accounts/user-accounts.js'),
    import('../clients/client-registration.js'),
    commands.config(),
    import('../keys/signing-key-cache.js'),
    import('../keys/signing-keys.js'),
    import('../storage/database-copy.js'),
    import('../storage/sqlite/file.js'),
    import('../webhooks/webhook-registration.js'),
  ]);
  return (
    error instanceof UsageError ||
    error instanceof config.ConfigError ||
    error instanceof accounts.AccountError ||
    error instanceof clients.ClientRegistrationError ||
    error instanceof keyCache.SigningKeyStartupError ||
    error instanceof keys.SigningKeyRetirementError ||
    error instanceof copy.DatabaseCopyError ||
    error instanceof file.DatabaseBackupError ||
    error instanceof webhooks.WebhookRegistrationError
  );
}

/** The usage of one command, for `latch COMMAND … --help`; undefined for a command Latch does not have. */
function usageOf(command: string): Promise<string> | undefined {
  return USAGES.find(([name]) => name === command)?.[1]();
}

/** `--help` or `-h` among a command's arguments (before a `--`, after which everything is an operand). */
function asksForHelp(args: string[]): boolean {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).some((arg) => arg === '--help' || arg === '-h');
}

/**
 * Runs one command. `terminal` is the process's own for `bin/latch.js`; a caller running commands in its own
 * process passes its own environment, input and output. `serve` always runs on the process's own: it owns the
 * process (signals, workers, the listening socket).
 */
export async function runCli(argv: string[], terminal: Terminal = processTerminal()): Promise<number> {
  const [command, ...args] = argv;
  if (command === 'serve' && !terminal.ownsProcess) throw new Error('latch serve owns its process: run it as `latch serve`, not inside another program');
  if (command !== undefined && asksForHelp(args)) {
    // `latch client create --help`: what the command takes, rather than "Unknown option '--help'".
    const usage = usageOf(command);
    if (usage !== undefined) {
      terminal.stdout.write(`${await usage}\n`);
      return 0;
    }
  }
  try {
    switch (command) {
      case 'serve':
        return await (await commands.serve()).runServeCommand(args);
      case 'migrate': {
        const { loadConfig } = await commands.config();
        const { migrateToLatest, openStorage, storageOptionsFromConfig } = await commands.storage();
        const config = loadConfig(terminal.env);
        const options = storageOptionsFromConfig(config);
        const storage = await openStorage(config.databaseUrl, { ...options, migrate: false });
        const result = await migrateToLatest(storage, options).finally(() => storage.close());
        const applied = result.results?.map((r) => r.migrationName) ?? [];
        terminal.stdout.write(applied.length ? `Applied: ${applied.join(', ')}\n` : 'Database is up to date.\n');
        return 0;
      }
      case 'db':
        await (await commands.db()).runDbCommand(args, terminal);
        return 0;
      case 'doctor':
        return await (await commands.doctor()).runDoctorCommand(args, terminal);
      case 'client':
      case 'user':
      case 'keys':
      case 'events':
      case 'webhook':
      case 'registration-token':
      case 'resource':
      case 'admin': {
        const { loadConfig } = await commands.config();
        const { openStorage, storageOptionsFromConfig } = await commands.storage();
        const config = loadConfig(terminal.env);
        const storage = await openStorage(config.databaseUrl, storageOptionsFromConfig(config));
        try {
          if (command === 'client') await (await commands.client()).runClientCommand(args, storage, { developmentMode: config.developmentMode }, terminal);
          else if (command === 'keys') await (await commands.keys()).runKeysCommand(args, storage, config, terminal);
          else if (command === 'events') await (await commands.events()).runEventsCommand(args, storage, terminal);
          else if (command === 'registration-token') await (await commands.registrationToken()).runRegistrationTokenCommand(args, storage, { registration: config.registration }, terminal);
          else if (command === 'admin') await (await commands.admin()).runAdminCommand(args, storage, terminal);
          else if (command === 'resource') await (await commands.resource()).runResourceCommand(args, storage, terminal);
          else if (command === 'webhook') await (await commands.webhook()).runWebhookCommand(args, storage, { latchSecret: config.secret, developmentMode: config.developmentMode }, terminal);
          else await (await commands.user()).runUserCommand(args, storage, terminal);
        } finally {
          await storage.close();
        }
        return 0;
      }
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        terminal.stdout.write(`${await usage()}\n`);
        return command === undefined ? 1 : 0;
      default:
        throw new UsageError(`Unknown command: ${command}\n\n${await usage()}`);
    }
  } catch (error) {
    if (await isOperatorError(error)) {
      terminal.stderr.write(`latch: ${(error as Error).message}\n`);
      return 2;
    }
    if (error instanceof TypeError && (error as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS')) {
      terminal.stderr.write(`latch: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
}
