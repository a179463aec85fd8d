/**
 * The `latch` command line: serve, migrate, client …, user …. Returns the process exit code; errors a person
 * can fix are printed as one line, never a stack trace.
 */
import { AccountError } from '../accounts/user-accounts.js';
import { ClientRegistrationError } from '../clients/client-registration.js';
import { ConfigError, loadConfig } from '../config.js';
import { SigningKeyStartupError } from '../keys/signing-key-cache.js';
import { SigningKeyRetirementError } from '../keys/signing-keys.js';
import { migrateToLatest, openStorage, storageOptionsFromConfig } from '../storage/open-storage.js';
import { DatabaseCopyError } from '../storage/database-copy.js';
import { DatabaseBackupError } from '../storage/sqlite/file.js';
import { CLIENT_USAGE, runClientCommand } from './client-commands.js';
import { DB_USAGE, runDbCommand } from './db-commands.js';
import { DOCTOR_USAGE, runDoctorCommand } from './doctor/doctor-command.js';
import { EVENTS_USAGE, runEventsCommand } from './events-command.js';
import { KEYS_USAGE, runKeysCommand } from './key-commands.js';
import { UsageError } from './output.js';
import { runServeCommand, SERVE_USAGE } from './serve.js';
import { runUserCommand, USER_USAGE } from './user-commands.js';

const USAGE = `Usage:
${SERVE_USAGE}
latch migrate                     Apply database migrations and exit
${CLIENT_USAGE}
${USER_USAGE}
${DB_USAGE}
${KEYS_USAGE}
${EVENTS_USAGE}
${DOCTOR_USAGE}`;

export async function runCli(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  try {
    switch (command) {
      case 'serve':
        return await runServeCommand(args);
      case 'migrate': {
        const config = loadConfig();
        const options = storageOptionsFromConfig(config);
        const storage = await openStorage(config.databaseUrl, { ...options, migrate: false });
        const result = await migrateToLatest(storage, options).finally(() => storage.close());
        const applied = result.results?.map((r) => r.migrationName) ?? [];
        process.stdout.write(applied.length ? `Applied: ${applied.join(', ')}\n` : 'Database is up to date.\n');
        return 0;
      }
      case 'db':
        await runDbCommand(args);
        return 0;
      case 'doctor':
        return await runDoctorCommand(args);
      case 'client':
      case 'user':
      case 'keys':
      case 'events': {
        const config = loadConfig();
        const storage = await openStorage(config.databaseUrl, storageOptionsFromConfig(config));
        try {
          if (command === 'client') await runClientCommand(args, storage, { developmentMode: config.developmentMode });
          else if (command === 'keys') await runKeysCommand(args, storage, config);
          else if (command === 'events') await runEventsCommand(args, storage);
          else await runUserCommand(args, storage);
        } finally {
          await storage.close();
        }
        return 0;
      }
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        process.stdout.write(`${USAGE}\n`);
        return command === undefined ? 1 : 0;
      default:
        throw new UsageError(`Unknown command: ${command}\n\n${USAGE}`);
    }
  } catch (error) {
    if (
      error instanceof UsageError ||
      error instanceof ConfigError ||
      error instanceof AccountError ||
      error instanceof ClientRegistrationError ||
      error instanceof SigningKeyStartupError ||
      error instanceof SigningKeyRetirementError ||
      error instanceof DatabaseCopyError ||
      error instanceof DatabaseBackupError
    ) {
      process.stderr.write(`latch: ${error.message}\n`);
      return 2;
    }
    if (error instanceof TypeError && (error as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`latch: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
}
