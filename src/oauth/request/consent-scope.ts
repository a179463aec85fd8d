/**
 * What a consent records, and what a remembered consent is checked against (docs/protocol-decisions.md
 * "Resource indicators and JWT access tokens"): Latch's own scopes by name, and an API's scope (RFC 8707) qualified by the
 * API's identifier, `<identifier>"<scope>`. Two APIs may register the same scope name (`read`); a person who
 * allowed one API's `read` has not allowed the other's, so a consent to one must not cover the other. The
 * double quote is in neither a scope token (RFC 6749 §3.3: %x21 / %x23-5B / %x5D-7E) nor a registered
 * identifier (a canonical URI, in which `"` is percent-encoded: RFC 3986 §2), so the pair reads back one way.
 *
 * A consent stored before this rule holds an API's scope by its bare name: it matches no request for that API
 * any more, so the person is asked once more, never granted more than they allowed.
 */
import { SUPPORTED_SCOPES } from './scope.js';

const OWN_SCOPES: readonly string[] = SUPPORTED_SCOPES;

/** The scope of a request as its consent records it: each API scope once per requested API that defines it. */
export function consentScope(scope: readonly string[], resources: readonly { identifier: string; scope: readonly string[] }[]): string[] {
  return scope.flatMap((name) => {
    if (OWN_SCOPES.includes(name)) return [name];
    const qualified = resources.filter((resource) => resource.scope.includes(name)).map((resource) => `${resource.identifier}"${name}`);
    // A request grants only scopes its resources define (scope.ts); a bare name here stays as it is.
    return qualified.length > 0 ? qualified : [name];
  });
}
