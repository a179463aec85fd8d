/**
 * What to say when a client_id is not registered, without repeating it: the value sent as client_id is often
 * the client secret (id and secret swapped), and an echo would put a live secret in the response body, the
 * request log and the developer console (issue 22: "No credential is ever echoed").
 */
import { SECRET_PREFIX } from '../../crypto/secrets.js';

/** The reason, never containing the value; names the mistake when the value is one of Latch's own secrets. */
export function unknownClientDescription(sentClientId: string): string {
  const secretKind = Object.entries(SECRET_PREFIX).find(([, prefix]) => sentClientId.startsWith(prefix))?.[0];
  if (secretKind === 'clientSecret') {
    return 'client_id is not a registered client: the value sent is a client secret, not a client id (the value is not repeated). Send the client id as client_id and the secret as client_secret, and rotate that secret: it has been sent where it may be logged';
  }
  if (secretKind !== undefined) {
    return 'client_id is not a registered client: the value sent is a Latch token, not a client id (the value is not repeated). Send the client id as client_id';
  }
  return 'client_id is not a registered client (the value is not repeated); check it against the developer console';
}
