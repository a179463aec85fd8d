/**
 * The ordered, static list of migrations for Kysely's Migrator (no directory scan, so it survives bundling).
 * Names sort in the order they must run.
 */
import type { Migration, MigrationProvider } from 'kysely';
import * as initial from './2026_11_22_0000_initial.js';
import * as accountPages from './2026_11_23_0100_account_pages.js';
import * as oidcSigningKeys from './2026_11_23_0200_oidc_signing_keys.js';
import * as grantIds from './2026_11_24_0000_grant_ids.js';
import * as refreshTokens from './2026_11_24_0100_refresh_tokens.js';
import * as logout from './2026_11_24_0200_logout.js';
import * as backchannelLogoutDeliveries from './2026_11_24_0300_backchannel_logout_deliveries.js';
import * as consentLastUsed from './2026_11_24_0400_consent_last_used.js';
import * as auditEvents from './2026_11_24_0500_audit_events.js';
import * as clientKinds from './2026_11_24_0600_client_kinds.js';
import * as secondFactors from './2026_11_24_0700_second_factors.js';
import * as passkeys from './2026_11_24_0710_passkeys.js';
import * as dynamicRegistration from './2026_11_24_0800_dynamic_registration.js';
import * as clientRefreshLifetimes from './2026_11_25_0000_client_refresh_lifetimes.js';
import * as authenticationMethods from './2026_11_25_0100_authentication_methods.js';
import * as webhooks from './2026_11_25_0200_webhooks.js';
import * as registrationTokens from './2026_11_25_0300_registration_tokens.js';
import * as adminConsole from './2026_11_25_0400_admin_console.js';
import * as registrationFirstUse from './2026_11_25_0430_registration_first_use.js';
import * as deviceAuthorizations from './2026_11_25_0500_device_authorizations.js';
import * as clientMetadataDocuments from './2026_11_25_0630_client_metadata_documents.js';
import * as resourceServers from './2026_11_25_0700_resource_servers.js';
import * as deviceResources from './2026_11_27_0500_device_resources.js';
import * as changeNotifications from './2026_11_27_2300_change_notifications.js';
import * as usedWebauthnChallenges from './2026_11_28_0000_used_webauthn_challenges.js';

export const migrations: Record<string, Migration> = {
  '2026_11_22_0000_initial': initial,
  '2026_11_23_0100_account_pages': accountPages,
  '2026_11_23_0200_oidc_signing_keys': oidcSigningKeys,
  '2026_11_24_0000_grant_ids': grantIds,
  '2026_11_24_0100_refresh_tokens': refreshTokens,
  '2026_11_24_0200_logout': logout,
  '2026_11_24_0300_backchannel_logout_deliveries': backchannelLogoutDeliveries,
  '2026_11_24_0400_consent_last_used': consentLastUsed,
  '2026_11_24_0500_audit_events': auditEvents,
  '2026_11_24_0600_client_kinds': clientKinds,
  '2026_11_24_0700_second_factors': secondFactors,
  '2026_11_24_0710_passkeys': passkeys,
  '2026_11_24_0800_dynamic_registration': dynamicRegistration,
  '2026_11_25_0000_client_refresh_lifetimes': clientRefreshLifetimes,
  '2026_11_25_0100_authentication_methods': authenticationMethods,
  '2026_11_25_0200_webhooks': webhooks,
  '2026_11_25_0300_registration_tokens': registrationTokens,
  '2026_11_25_0400_admin_console': adminConsole,
  '2026_11_25_0430_registration_first_use': registrationFirstUse,
  '2026_11_25_0500_device_authorizations': deviceAuthorizations,
  '2026_11_25_0630_client_metadata_documents': clientMetadataDocuments,
  '2026_11_25_0700_resource_servers': resourceServers,
  '2026_11_27_0500_device_resources': deviceResources,
  '2026_11_27_2300_change_notifications': changeNotifications,
  '2026_11_28_0000_used_webauthn_challenges': usedWebauthnChallenges,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};
