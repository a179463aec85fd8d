/**
 * The ordered, static list of migrations for Kysely's Migrator (no directory scan, so it survives bundling).
 * Names sort in the order they must run.
 */
import type { Migration, MigrationProvider } from 'kysely';
import * as initial from './2026_11_22_0000_initial.js';
import * as accountPages from './2026_11_23_0100_account_pages.js';
import * as oidcSigningKeys from './2026_11_23_0200_oidc_signing_keys.js';

export const migrations: Record<string, Migration> = {
  '2026_11_22_0000_initial': initial,
  '2026_11_23_0100_account_pages': accountPages,
  '2026_11_23_0200_oidc_signing_keys': oidcSigningKeys,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};
