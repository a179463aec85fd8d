/**
 * The logout request (OIDC RP-Initiated Logout 1.0 §2, §3; docs/protocol-decisions.md "Logout"), validated as a
 * pure step before anything happens: each parameter at most once; id_token_hint an id_token of Latch's (signature
 * and issuer; an expired one is still a hint); the client named by the hint's `aud` or by client_id, which must
 * agree; post_logout_redirect_uri only if it equals one registered for that client, character for character.
 * Every failure is an InvalidRequest that the route shows on a page: nothing here may lead to a redirect to a URI
 * that was not verified.
 */
import type { SigningKeyCache } from '../../keys/signing-key-cache.js';
import { InvalidRequest } from '../../errors.js';
import type { RawParams } from '../../http/form-body.js';
import type { Client, Storage } from '../../storage/storage.js';
import { verifyLatchIdToken } from './id-token-hint.js';
import { findDuplicatedParam, readParam } from './params.js';

export interface LogoutRequest {
  /** The app the request names (by the hint's audience or client_id), when it names one. */
  client: Client | null;
  /** The person and session the verified id_token_hint names. */
  hint: { sub: string; sid: string | null } | null;
  /** A post_logout_redirect_uri registered for `client`: the only place Latch may redirect to afterwards. */
  postLogoutRedirectUri: string | null;
  /** Returned unchanged with the redirect (§3). */
  state: string | null;
}

const NOT_REDIRECTABLE = { redirectable: false } as const;
/** An id_token is far below this; the limit only bounds the work on a hostile request. */
const MAX_ID_TOKEN_HINT_LENGTH = 16_384;

export async function parseLogoutRequest(
  params: RawParams,
  { storage, signingKeys, issuer }: { storage: Storage; signingKeys: SigningKeyCache; issuer: string },
): Promise<LogoutRequest> {
  const duplicated = findDuplicatedParam(params);
  if (duplicated !== undefined) throw new InvalidRequest(`${duplicated} was sent more than once; send it exactly once`, NOT_REDIRECTABLE);
  const idTokenHint = readParam(params, 'id_token_hint', { ...NOT_REDIRECTABLE, maxLength: MAX_ID_TOKEN_HINT_LENGTH });
  const clientId = readParam(params, 'client_id', NOT_REDIRECTABLE);
  const postLogoutRedirectUri = readParam(params, 'post_logout_redirect_uri', NOT_REDIRECTABLE);
  const state = readParam(params, 'state', NOT_REDIRECTABLE) ?? null;
  // logout_hint (§2) is read only to bound it: Latch has one account per browser. ui_locales chooses the page's
  // language (http/page-locale.ts reads it where the page is rendered).
  readParam(params, 'logout_hint', NOT_REDIRECTABLE);
  readParam(params, 'ui_locales', NOT_REDIRECTABLE);

  const token = idTokenHint === undefined ? null : await verifyLatchIdToken(signingKeys, idTokenHint, issuer);
  if (token && token.audience.length !== 1) {
    throw new InvalidRequest('id_token_hint names more than one audience; Latch issues id_tokens to one client each', NOT_REDIRECTABLE);
  }
  const hintClientId = token?.audience[0];
  // §2: "When both client_id and id_token_hint are present, the OP MUST verify that the Client Identifier matches
  // the one used when issuing the ID Token."
  if (hintClientId !== undefined && clientId !== undefined && hintClientId !== clientId) {
    throw new InvalidRequest('client_id is not the client the id_token_hint was issued to; send the id_token this client received', NOT_REDIRECTABLE);
  }
  const namedClientId = hintClientId ?? clientId;
  const client = namedClientId === undefined ? null : await storage.clients.findById(namedClientId);
  if (namedClientId !== undefined && !client) {
    throw new InvalidRequest(
      hintClientId !== undefined ? 'id_token_hint was issued to a client that no longer exists' : `client_id ${namedClientId} is not a registered client`,
      NOT_REDIRECTABLE,
    );
  }

  if (postLogoutRedirectUri !== undefined) {
    // §3: without a client there is nothing to compare with, so never a redirect.
    if (!client) {
      throw new InvalidRequest('post_logout_redirect_uri needs id_token_hint or client_id to say which app registered it', NOT_REDIRECTABLE);
    }
    // §3: "The OP MUST NOT perform post-logout redirection if the value supplied does not exactly match one of
    // the previously registered post_logout_redirect_uris values." Exact: no loopback port rule, no added query.
    if (!client.postLogoutRedirectUris.includes(postLogoutRedirectUri)) {
      throw new InvalidRequest(
        `post_logout_redirect_uri ${postLogoutRedirectUri} is not registered for this client` +
          (client.postLogoutRedirectUris.length === 0 ? ' (it has none: register one with the CLI or the developer console)' : ''),
        NOT_REDIRECTABLE,
      );
    }
  }
  return {
    client,
    hint: token && { sub: token.sub, sid: token.sid },
    postLogoutRedirectUri: postLogoutRedirectUri ?? null,
    state,
  };
}
