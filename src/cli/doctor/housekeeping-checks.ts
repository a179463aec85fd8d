/**
 * What time wears: expired rows the cleanup should remove, and signing keys that age. Pure: the rows and keys
 * come from storage/database-inspection.ts.
 */
import { SIGNING_ALGORITHMS } from '../../crypto/signing-algorithms.js';
import { pickSigningKey, signingKeyState } from '../../keys/signing-keys.js';
import type { ExpiredRows, ExpiringTable, ExpiryCutoffs } from '../../storage/database-inspection.js';
import type { SigningKeyRecord } from '../../storage/storage.js';
import type { Finding } from './finding.js';

// As server.ts runs the cleanup (deleteExpiredRecords): every 10 minutes in every serving process; codes are kept
// a day past expiry so that a late replay is still recognised as reuse. Keep these in step with it.
const CLEANUP_INTERVAL_MS = 10 * 60 * 1000;
const CODE_RETENTION_MS = 86400 * 1000;
/** A row older than two cleanup intervals past its cutoff should have gone: the cleanup is not running. */
const OVERDUE_AFTER_MS = 2 * CLEANUP_INTERVAL_MS;
/** Overdue rows beyond this many are a warning: deletes that large hold the write lock in long batches. */
export const OVERDUE_ROWS_WARNING = 1000;

/** For each table, what the cleanup would delete at `now`, and what it should have deleted by then. */
export function expiryCutoffs(now: Date): Record<ExpiringTable, ExpiryCutoffs> {
  const at = (msBefore: number) => new Date(now.getTime() - msBefore);
  const plain = { due: now, overdue: at(OVERDUE_AFTER_MS) };
  return {
    authorization_codes: { due: at(CODE_RETENTION_MS), overdue: at(CODE_RETENTION_MS + OVERDUE_AFTER_MS) },
    access_tokens: plain,
    refresh_tokens: plain,
    browser_sessions: plain,
    email_links: plain,
    // Kept as long as codes (server.ts deleteExpiredRecords).
    device_authorizations: { due: at(CODE_RETENTION_MS), overdue: at(CODE_RETENTION_MS + OVERDUE_AFTER_MS) },
    used_webauthn_challenges: plain,
  };
}

export function checkExpiredRows(counts: readonly ExpiredRows[]): Finding {
  const due = counts.reduce((sum, row) => sum + row.due, 0);
  const overdue = counts.reduce((sum, row) => sum + row.overdue, 0);
  const perTable = counts.filter((row) => row.due > 0).map((row) => `${row.table} ${row.due}`).join(', ');
  const waiting = `${due} expired row${due === 1 ? '' : 's'} waiting for the cleanup${perTable ? ` (${perTable})` : ''}`;
  const fix =
    'The cleanup runs every 10 minutes in each `latch serve` process: if none runs on this database, start one; if one does, look in its log for "cleanup of expired records failed".';
  if (overdue >= OVERDUE_ROWS_WARNING) {
    return { check: 'expired-rows', level: 'warning', title: `${waiting}; ${overdue} of them should have been deleted by now`, fix };
  }
  if (overdue > 0) {
    return { check: 'expired-rows', level: 'note', title: `${waiting}; ${overdue} of them should have been deleted by now`, fix };
  }
  return { check: 'expired-rows', level: 'ok', title: due === 0 ? 'No expired rows are waiting for the cleanup' : waiting, fix: null };
}

/**
 * A signing key is due for rotation 90 days after it began signing (a short cryptoperiod bounds what a leaked
 * key can sign, and keeps rotation a practised routine); NIST SP 800-57 Part 1 Rev. 5 §5.3.6 gives private
 * signature keys one to three years, so past a year it is a warning.
 */
export const ROTATION_DUE_DAYS = 90;
export const ROTATION_OVERDUE_DAYS = 365;
const DAY_MS = 86400 * 1000;

function day(date: Date): string {
  return date.toISOString().slice(0, 10);
}

export function checkSigningKeys(keys: readonly SigningKeyRecord[], now: Date): Finding {
  const rotate = 'Run `latch keys rotate` (the new keys are published an hour before they sign; the old ones stay in the JWKS until their id_tokens expire).';
  const signers = SIGNING_ALGORITHMS.map((alg) => ({ alg, key: pickSigningKey(keys, alg, now) }));
  const missing = signers.filter(({ key }) => !key).map(({ alg }) => alg);
  if (missing.length === SIGNING_ALGORITHMS.length && keys.every((key) => signingKeyState(key, now) === 'retired')) {
    return { check: 'signing-keys', level: 'note', title: 'No signing keys yet: the first `latch serve` generates them', fix: null };
  }
  if (missing.length > 0) {
    const upcoming = keys.filter((key) => missing.includes(key.alg) && signingKeyState(key, now) === 'pending');
    return {
      check: 'signing-keys',
      level: 'warning',
      title: `No ${missing.join(', ')} key signs now${upcoming.length ? ` (the next activates ${upcoming.map((key) => key.activatesAt.toISOString()).join(', ')})` : ''}: id_tokens for clients that use ${missing.length === 1 ? 'it' : 'them'} fail`,
      fix: upcoming.length ? 'Wait for the pending key, or run `latch keys rotate --lead-seconds 0` for that algorithm.' : 'Restart `latch serve` (it generates a key for every algorithm without one) or run `latch keys rotate`.',
    };
  }
  const oldest = signers.reduce((a, b) => (b.key!.activatesAt < a.key!.activatesAt ? b : a));
  const ageDays = Math.floor((now.getTime() - oldest.key!.activatesAt.getTime()) / DAY_MS);
  const pending = keys.filter((key) => signingKeyState(key, now) === 'pending').sort((a, b) => a.activatesAt.getTime() - b.activatesAt.getTime());
  const age = `The oldest signing key (${oldest.alg}) has signed for ${ageDays} day${ageDays === 1 ? '' : 's'}`;
  if (pending.length > 0) {
    return { check: 'signing-keys', level: 'ok', title: `${age}; the next (${pending[0]!.alg}) signs from ${pending[0]!.activatesAt.toISOString()}`, fix: null };
  }
  const dueAt = new Date(oldest.key!.activatesAt.getTime() + ROTATION_DUE_DAYS * DAY_MS);
  if (ageDays >= ROTATION_OVERDUE_DAYS) {
    return { check: 'signing-keys', level: 'warning', title: `${age}: over a year, past its rotation (due ${day(dueAt)})`, fix: rotate };
  }
  if (ageDays >= ROTATION_DUE_DAYS) {
    return { check: 'signing-keys', level: 'note', title: `${age}: rotation was due ${day(dueAt)} (every ${ROTATION_DUE_DAYS} days)`, fix: rotate };
  }
  return { check: 'signing-keys', level: 'ok', title: `${age}; next rotation due ${day(dueAt)} (every ${ROTATION_DUE_DAYS} days, \`latch keys rotate\`)`, fix: null };
}

/**
 * Whether this installation's secret opens its signing keys: a server refuses to start when a published key does
 * not decrypt (keys/signing-key-cache.ts). `undecryptable` lists the kids that failed; `secretKnown` false when
 * there is no secret to try (data/secret missing beside a database that has keys).
 */
export function checkKeysOpenWithSecret(published: number, undecryptable: readonly string[], secretKnown: boolean): Finding | null {
  if (published === 0) return null;
  if (!secretKnown) {
    return {
      check: 'signing-keys-secret',
      level: 'problem',
      title: `The database has ${published} signing key${published === 1 ? '' : 's'} but there is no secret to decrypt them: the next start generates a new one and then refuses to start`,
      fix: 'Restore the secret this database was made with (data/secret, from the backup kept with it), or set LATCH_SECRET to it.',
    };
  }
  if (undecryptable.length > 0) {
    return {
      check: 'signing-keys-secret',
      level: 'problem',
      title: `${undecryptable.length} of ${published} published signing keys cannot be decrypted with this secret (${undecryptable.join(', ')}): Latch refuses to start`,
      fix: 'Use the LATCH_SECRET (or data/secret) this database was made with; a restored database needs the secret it was taken with.',
    };
  }
  return { check: 'signing-keys-secret', level: 'ok', title: `The secret decrypts all ${published} published signing key${published === 1 ? '' : 's'}`, fix: null };
}
