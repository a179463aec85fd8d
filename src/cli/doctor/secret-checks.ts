/**
 * LATCH_SECRET: present, long enough, not made by hand, and (the generated file of the embedded default) readable
 * by this user only. Pure: the file is read by probes.ts. No finding ever contains the secret or a part of it.
 *
 * The secret keys the CSRF tokens and encrypts the signing keys at rest (crypto/key-encryption.ts): whoever can
 * guess it and read a database dump can sign id_tokens as Latch.
 */
import type { Finding } from './finding.js';

/** config.ts refuses a shorter LATCH_SECRET. */
export const MINIMUM_SECRET_LENGTH = 32;
/** Words found in secrets people make up (and in Latch's own test secrets), next to never by chance in a random one. */
const MADE_UP_WORDS = ['changeme', 'change-me', 'secret', 'password', 'example', 'default', 'latch', 'qwerty'];
/**
 * Below this many bits by the characters' Shannon entropy times the length, a secret is too regular to be random.
 * A random secret is far above it: 32 random decimal digits (106 bits) never estimated under 79 in 20,000 draws.
 */
const MINIMUM_ESTIMATED_BITS = 64;
/**
 * Fewer different characters than this, or more than three quarters of neighbours one apart (abcd, 1234, aaaa),
 * is made by hand. Both bounds leave random digit strings, the poorest alphabet, a margin: 32 random digits have
 * fewer than 6 different ones about once in 10^7, and three quarters neighbouring pairs far less often.
 */
const MINIMUM_DISTINCT_CHARACTERS = 6;
const MAXIMUM_NEIGHBOUR_SHARE = 0.75;

/** Bits of the secret by the frequency of its characters: an upper bound for made-up ones, near the truth for random ones. */
export function estimatedBits(secret: string): number {
  const counts = new Map<string, number>();
  for (const character of secret) counts.set(character, (counts.get(character) ?? 0) + 1);
  const length = [...secret].length;
  let bitsPerCharacter = 0;
  for (const count of counts.values()) bitsPerCharacter -= (count / length) * Math.log2(count / length);
  return bitsPerCharacter * length;
}

/** The shortest pattern whose repetition is the whole secret (its last copy may be cut), or null. */
function repeatedPattern(secret: string): number | null {
  for (let period = 1; period <= secret.length / 2; period++) {
    let repeats = true;
    for (let i = period; i < secret.length && repeats; i++) repeats = secret[i] === secret[i - period];
    if (repeats) return period;
  }
  return null;
}

/** Why the secret looks made by hand, or null when it looks random. A heuristic: it cannot prove randomness. */
export function secretWeakness(secret: string): string | null {
  const length = [...secret].length;
  if (length < MINIMUM_SECRET_LENGTH) return `it is ${length} characters long; Latch needs at least ${MINIMUM_SECRET_LENGTH} and refuses to start`;
  // As people type them (lower case, upper case, capitalised): in any mix of cases a random base64 secret holds one
  // of these about once in a million draws ("…pxIlaTch8…"), and calling that weak would be a false alarm.
  const word = MADE_UP_WORDS.find((candidate) =>
    [candidate, candidate.toUpperCase(), candidate[0]!.toUpperCase() + candidate.slice(1)].some((form) => secret.includes(form)),
  );
  if (word) return `it contains "${word}"`;
  const period = repeatedPattern(secret);
  if (period !== null) return `it repeats a ${period}-character pattern`;
  const distinct = new Set(secret).size;
  if (distinct < MINIMUM_DISTINCT_CHARACTERS) return `it uses only ${distinct} different characters`;
  let neighbours = 0;
  for (let i = 1; i < secret.length; i++) if (Math.abs(secret.charCodeAt(i) - secret.charCodeAt(i - 1)) <= 1) neighbours += 1;
  if (neighbours > (secret.length - 1) * MAXIMUM_NEIGHBOUR_SHARE) return 'it is mostly runs of neighbouring characters (abcd…, 1234…)';
  const bits = estimatedBits(secret);
  if (bits < MINIMUM_ESTIMATED_BITS) return `its characters carry about ${Math.round(bits)} bits`;
  return null;
}

/** Where this installation's secret comes from, as probes.ts found it (the secret itself only to be judged). */
export type SecretSource =
  | { kind: 'environment'; secret: string }
  /** The embedded default's generated file, read; `mode` its permission bits. */
  | { kind: 'file'; path: string; secret: string; mode: number }
  | { kind: 'unreadable-file'; path: string; reason: string }
  /**
   * Not set and no file: `path` where the first start generates it, or null on PostgreSQL (which needs
   * LATCH_SECRET); `databaseExists` when the embedded database is already there (the secret it was made with is lost).
   */
  | { kind: 'missing'; path: string | null; databaseExists?: boolean }
  /** An in-memory database: a fresh secret each start, nothing to check. */
  | { kind: 'memory' };

const GENERATE = 'Generate one, e.g. `openssl rand -base64 32`, and set it in LATCH_SECRET (the same in every process)';
const KEYS_FOLLOW =
  'the signing keys are encrypted under the old one, so with the new secret in place run `latch keys rotate --lead-seconds 0` and `latch keys retire KID` for each old key before Latch starts again (id_tokens they signed stop verifying)';

export function checkSecret(source: SecretSource): Finding[] {
  switch (source.kind) {
    case 'memory':
      return [{ check: 'secret', level: 'ok', title: 'In-memory database: a new secret is made at every start', fix: null }];
    case 'missing':
      if (source.path === null) {
        return [{ check: 'secret', level: 'problem', title: 'LATCH_SECRET is not set; with PostgreSQL Latch refuses to start without it', fix: `${GENERATE}.` }];
      }
      // The database outlived its secret (a copy without data/secret, a deleted file): the next start makes a new
      // one, under which the signing keys made with the old one cannot be decrypted (signing-keys-secret says so).
      return source.databaseExists
        ? [
            {
              check: 'secret',
              level: 'warning',
              title: `LATCH_SECRET is not set and ${source.path} is missing beside an existing database: the next start generates a new secret`,
              fix: `Restore ${source.path} from the backup kept with the database (or set LATCH_SECRET to the secret it was made with) before starting Latch.`,
            },
          ]
        : [
            {
              check: 'secret',
              level: 'note',
              title: `LATCH_SECRET is not set and ${source.path} does not exist yet: the first start generates it (readable by its owner only)`,
              fix: 'Nothing to do on one machine. Keep the file with your backups, stored apart from them; set LATCH_SECRET to its contents when moving to PostgreSQL.',
            },
          ];
    case 'unreadable-file':
      return [
        {
          check: 'secret',
          level: 'problem',
          title: `${source.path} cannot be read (${source.reason}): Latch cannot start without its secret`,
          fix: `Run Latch (and latch doctor) as the user that owns ${source.path}, or give that user read access to it.`,
        },
      ];
    case 'environment': {
      const weakness = secretWeakness(source.secret);
      if (!weakness) return [{ check: 'secret', level: 'ok', title: `LATCH_SECRET is set (${source.secret.length} characters) and looks random`, fix: null }];
      return [{ check: 'secret', level: 'problem', title: `LATCH_SECRET looks weak: ${weakness}`, fix: `${GENERATE}; ${KEYS_FOLLOW}.` }];
    }
    case 'file': {
      const findings: Finding[] = [];
      const weakness = secretWeakness(source.secret);
      findings.push(
        weakness
          ? { check: 'secret', level: 'problem', title: `The secret in ${source.path} looks weak: ${weakness}`, fix: `Latch generates a random one there; replace this one with \`openssl rand -base64 32\`; ${KEYS_FOLLOW}.` }
          : { check: 'secret', level: 'ok', title: `LATCH_SECRET comes from ${source.path} (generated, ${source.secret.length} characters)`, fix: null },
      );
      // The group and others need no access: Latch writes it with mode 0600 (config.ts).
      if ((source.mode & 0o077) !== 0) {
        findings.push({
          check: 'secret-file',
          level: 'warning',
          title: `${source.path} can be read by other users (mode ${(source.mode & 0o777).toString(8).padStart(4, '0')})`,
          fix: `chmod 600 ${source.path}: whoever reads it can decrypt the signing keys in a copy of the database.`,
        });
      } else {
        findings.push({ check: 'secret-file', level: 'ok', title: `${source.path} is readable by its owner only`, fix: null });
      }
      return findings;
    }
  }
}
