/** `latch db …`: moving a Latch database (DESIGN "Scale"; src/storage/database-copy.ts does the work). */
import { parseArgs } from 'node:util';
import { copyDatabase } from '../storage/database-copy.js';
import { UsageError } from './output.js';

export const DB_USAGE = `latch db copy --from URL --to URL [--from-schema S] [--to-schema S] [--force]
                                  Copy every row to another database (e.g. sqlite:data/latch.db to postgres://…),
                                  verify the counts; refuses a non-empty target unless --force`;

function checkDatabaseUrl(flag: string, url: string | undefined): string {
  if (!url) throw new UsageError(`latch db copy needs ${flag} URL (sqlite:PATH or postgres://…)`);
  if (!/^(sqlite:|postgres:\/\/|postgresql:\/\/)/.test(url)) throw new UsageError(`${flag} must start with sqlite: or postgres:// (got "${url}")`);
  return url;
}

export async function runDbCommand(args: string[]): Promise<void> {
  const [subcommand, ...rest] = args;
  if (subcommand !== 'copy') throw new UsageError(`Unknown command: latch db ${subcommand ?? ''}\n\n${DB_USAGE}`);
  const { values } = parseArgs({
    args: rest,
    options: {
      from: { type: 'string' },
      to: { type: 'string' },
      'from-schema': { type: 'string' },
      'to-schema': { type: 'string' },
      force: { type: 'boolean', default: false },
    },
  });
  const from = { url: checkDatabaseUrl('--from', values.from), schema: values['from-schema'] ?? null };
  const to = { url: checkDatabaseUrl('--to', values.to), schema: values['to-schema'] ?? null };
  for (const schema of [from.schema, to.schema]) {
    if (schema !== null && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new UsageError(`A schema must be a lower-case SQL identifier (got "${schema}")`);
  }
  const report = await copyDatabase(from, to, {
    force: values.force,
    onTable: (table, rows) => process.stdout.write(`${table.padEnd(22)} ${rows}\n`),
  });
  process.stdout.write(`Copied ${report.totalRows} rows in ${report.tables.length} tables; row counts verified.\n`);
  process.stderr.write(
    'Start the new deployment with the same LATCH_SECRET as the old one (on the embedded default it is in the data folder, data/secret): signing keys and forms depend on it.\n',
  );
}
