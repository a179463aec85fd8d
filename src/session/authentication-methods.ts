/**
 * How a person authenticated, and what that is worth (docs/protocol-decisions.md "Authentication methods and
 * levels"; issue 17 item 5). Pure rules, tested as a table beside this module.
 *
 * `amr` (OIDC Core §2) lists RFC 8176 §2 values:
 * - a password: `pwd`;
 * - with a code from an authenticator app, or a recovery code (also a one-time password): `pwd otp mfa`;
 * - with a passkey as the second step: `pwd hwk|swk user mfa`;
 * - a passkey alone, which Latch always asks to verify the user (PIN or biometric, `userVerification:
 *   required`): `hwk|swk user mfa`, since possession and the verification are two factors.
 * `hwk` is a key that cannot leave its device (backup-eligible flag off), `swk` one that can be synced. Whether
 * the verification was a PIN or a fingerprint is not told to the server, so neither `pin` nor `fpt` is claimed.
 *
 * `acr` values, from weakest to strongest: `https://refeds.org/profile/sfa` (one factor),
 * `https://refeds.org/profile/mfa` (two), `phr` (phishing-resistant: a passkey took part) and `phrh` (with a
 * key bound to hardware) from OpenID EAP ACR Values 1.0. A request's `acr_values` name what the app would like;
 * the id_token carries the strongest of those the sign-in reaches, or the sign-in's own level when it reaches
 * none of them (acr_values are voluntary, OIDC Core §3.1.2.1). A client registered with "require two-step
 * verification" makes the mfa level essential for all its users.
 */
export const ACR = {
  singleFactor: 'https://refeds.org/profile/sfa',
  multiFactor: 'https://refeds.org/profile/mfa',
  phishingResistant: 'phr',
  phishingResistantHardware: 'phrh',
} as const;

/** In order of strength: the index is the level. Advertised as acr_values_supported. */
export const ACR_VALUES_SUPPORTED: readonly string[] = [ACR.singleFactor, ACR.multiFactor, ACR.phishingResistant, ACR.phishingResistantHardware];

export type SecondStep = 'otp' | 'recovery_code' | { passkey: { deviceBound: boolean } };

export const PASSWORD_AMR: readonly string[] = ['pwd'];

const keyMethod = (deviceBound: boolean) => (deviceBound ? 'hwk' : 'swk');

/** A passkey alone, with user verification. */
export function passkeyAmr(deviceBound: boolean): string[] {
  return [keyMethod(deviceBound), 'user', 'mfa'];
}

/** The first step's methods with a second step added. */
export function withSecondStep(first: readonly string[], second: SecondStep): string[] {
  const added = typeof second === 'string' ? ['otp'] : [keyMethod(second.passkey.deviceBound), 'user'];
  const methods = [...first.filter((method) => method !== 'mfa'), ...added];
  return [...new Set([...methods, 'mfa'])];
}

/** The level of a sign-in (an index into ACR_VALUES_SUPPORTED), or null when its methods are not known. */
export function levelOf(amr: readonly string[]): number | null {
  if (amr.length === 0) return null;
  if (amr.includes('hwk')) return 3;
  if (amr.includes('swk')) return 2;
  if (amr.includes('mfa')) return 1;
  return 0;
}

/** The acr values asked for that Latch knows, as levels; unknown values are ignored (they are voluntary). */
function requestedLevels(acrValues: readonly string[]): number[] {
  return acrValues.map((value) => ACR_VALUES_SUPPORTED.indexOf(value)).filter((level) => level >= 0);
}

/**
 * The level a request wants: the weakest acr value it names that Latch knows (any of them would do), and at
 * least mfa for a client that requires a second factor. Null: any sign-in will do.
 */
export function wantedLevel(acrValues: readonly string[], clientRequiresMfa: boolean): { level: number; essential: boolean } | null {
  const levels = requestedLevels(acrValues);
  const asked = levels.length > 0 ? Math.min(...levels) : null;
  if (clientRequiresMfa) return { level: Math.max(asked ?? 1, 1), essential: true };
  return asked === null || asked === 0 ? null : { level: asked, essential: false };
}

/** The acr for the id_token: the strongest requested value this sign-in reaches, else its own level; null when not known. */
export function chooseAcr(amr: readonly string[], acrValues: readonly string[]): string | null {
  const level = levelOf(amr);
  if (level === null) return null;
  const reached = requestedLevels(acrValues).filter((requested) => requested <= level);
  return ACR_VALUES_SUPPORTED[reached.length > 0 ? Math.max(...reached) : level]!;
}

/** What a person has enrolled that could raise a sign-in: the second step offered for a step-up. */
export interface EnrolledFactors {
  authenticatorApp: boolean;
  passkeys: ReadonlyArray<{ deviceBound: boolean }>;
}

/** Which second steps a step-up offers: any enrolled factor, a passkey, or a passkey that cannot leave its device. */
export type StepUpKind = 'any' | 'passkey' | 'device-bound passkey';

/**
 * The second step that would bring a sign-in up to `level`, or null when nothing the person has enrolled can:
 * `any` (an app code or a passkey) for mfa; `passkey` for phr; `device-bound passkey` for phrh.
 */
export function stepUpFor(level: number, factors: EnrolledFactors): StepUpKind | null {
  if (level <= 1) return factors.authenticatorApp || factors.passkeys.length > 0 ? 'any' : null;
  if (level === 2) return factors.passkeys.length > 0 ? 'passkey' : null;
  return factors.passkeys.some((passkey) => passkey.deviceBound) ? 'device-bound passkey' : null;
}
