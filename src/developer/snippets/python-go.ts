/**
 * Python (Authlib with Flask) and Go (go-oidc v3 with golang.org/x/oauth2): Authorization Code with PKCE
 * (S256), state and nonce, the id_token verified against Latch's JWKS. Go also has a public-client form
 * (a command-line or desktop app on a loopback redirect URL, RFC 8252); Flask runs in a back end and keeps
 * a secret, so it is for confidential clients only.
 */
import { environmentLines, isHttpIssuer, type IntegrationSnippet, type SnippetContext } from './snippet.js';

export function pythonAuthlibSnippet(context: SnippetContext): IntegrationSnippet {
  const code = [
    'import os',
    'from urllib.parse import urlsplit',
    '',
    'from authlib.integrations.flask_client import OAuth',
    'from flask import Flask',
    '',
    'app = Flask(__name__)',
    '# Signs the session cookie that carries state, nonce and the PKCE verifier between /login and the callback.',
    'app.secret_key = os.environ["FLASK_SECRET_KEY"]',
    'oauth = OAuth(app)',
    'oauth.register(',
    '    "latch",',
    '    client_id=os.environ["LATCH_CLIENT_ID"],',
    '    client_secret=os.environ["LATCH_CLIENT_SECRET"],  # read from the environment: never in the code',
    '    server_metadata_url=os.environ["LATCH_ISSUER"] + "/.well-known/openid-configuration",',
    '    client_kwargs={"scope": "openid email profile", "code_challenge_method": "S256"},',
    ')',
    'REDIRECT_URI = os.environ["LATCH_REDIRECT_URI"]',
    '',
    '',
    '@app.route("/login")',
    'def login():',
    '    return oauth.latch.authorize_redirect(REDIRECT_URI)',
    '',
    '',
    '@app.route(urlsplit(REDIRECT_URI).path)',
    'def callback():',
    '    # Checks state, exchanges the code with the PKCE verifier, validates the id_token (signature, iss, aud, nonce).',
    '    token = oauth.latch.authorize_access_token()',
    '    user = token["userinfo"]',
    '    return f"Signed in as {user[\'email\']}"',
    '',
    '',
    'if __name__ == "__main__":',
    '    app.run(port=int(os.environ.get("PORT") or urlsplit(REDIRECT_URI).port or 5000))',
  ].join('\n');
  const environment = [...environmentLines(context), '# Any long random value, e.g. from: python3 -c "import secrets; print(secrets.token_urlsafe(32))"', 'FLASK_SECRET_KEY='];
  if (isHttpIssuer(context.issuer)) {
    // Authlib refuses token requests over http:// except to some loopback hosts (which ones depends on its
    // version) unless this is set.
    environment.push('# Your issuer is http:// (a local Latch): lets Authlib talk to it. Remove it once the issuer is https.', 'AUTHLIB_INSECURE_TRANSPORT=1');
  }
  return {
    id: 'python-authlib',
    title: 'Python: Authlib with Flask',
    install: 'pip install authlib flask requests',
    environment: environment.join('\n'),
    files: [{ id: 'snippet-python-authlib', name: 'app.py', code }],
    notes: ['Export the environment (or use python-dotenv), run python3 app.py and open /login.'],
  };
}

export function goOidcSnippet(context: SnippetContext): IntegrationSnippet {
  const secretLines = context.isPublic
    ? ['\t\t// A public client: no secret. The client id goes in the form body, PKCE proves the caller.']
    : ['\t\tClientSecret: os.Getenv("LATCH_CLIENT_SECRET"), // read from the environment: never in the code'];
  const endpointLines = context.isPublic ? ['\tendpoint := provider.Endpoint()', '\tendpoint.AuthStyle = oauth2.AuthStyleInParams'] : ['\tendpoint := provider.Endpoint()'];
  const code = [
    'package main',
    '',
    'import (',
    '\t"context"',
    '\t"crypto/rand"',
    '\t"encoding/base64"',
    '\t"fmt"',
    '\t"log"',
    '\t"net/http"',
    '\t"net/url"',
    '\t"os"',
    '',
    '\t"github.com/coreos/go-oidc/v3/oidc"',
    '\t"golang.org/x/oauth2"',
    ')',
    '',
    'func random() string {',
    '\tb := make([]byte, 24)',
    '\tif _, err := rand.Read(b); err != nil {',
    '\t\tpanic(err)',
    '\t}',
    '\treturn base64.RawURLEncoding.EncodeToString(b)',
    '}',
    '',
    'func main() {',
    '\tctx := context.Background()',
    '\tprovider, err := oidc.NewProvider(ctx, os.Getenv("LATCH_ISSUER"))',
    '\tif err != nil {',
    '\t\tlog.Fatal(err)',
    '\t}',
    '\tredirectURL, err := url.Parse(os.Getenv("LATCH_REDIRECT_URI"))',
    '\tif err != nil {',
    '\t\tlog.Fatal(err)',
    '\t}',
    ...endpointLines,
    '\tconfig := oauth2.Config{',
    '\t\tClientID:     os.Getenv("LATCH_CLIENT_ID"),',
    ...secretLines,
    '\t\tEndpoint:     endpoint,',
    '\t\tRedirectURL:  redirectURL.String(),',
    '\t\tScopes:       []string{oidc.ScopeOpenID, "email", "profile"},',
    '\t}',
    '\tverifier := provider.Verifier(&oidc.Config{ClientID: config.ClientID})',
    '',
    '\thttp.HandleFunc("/login", func(w http.ResponseWriter, r *http.Request) {',
    '\t\tstate, nonce, pkce := random(), random(), oauth2.GenerateVerifier()',
    '\t\tfor name, value := range map[string]string{"state": state, "nonce": nonce, "pkce": pkce} {',
    '\t\t\thttp.SetCookie(w, &http.Cookie{Name: name, Value: value, Path: "/", MaxAge: 600, HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteLaxMode})',
    '\t\t}',
    '\t\thttp.Redirect(w, r, config.AuthCodeURL(state, oidc.Nonce(nonce), oauth2.S256ChallengeOption(pkce)), http.StatusFound)',
    '\t})',
    '',
    '\thttp.HandleFunc(redirectURL.Path, func(w http.ResponseWriter, r *http.Request) {',
    '\t\tstate, err1 := r.Cookie("state")',
    '\t\tnonce, err2 := r.Cookie("nonce")',
    '\t\tpkce, err3 := r.Cookie("pkce")',
    '\t\tif err1 != nil || err2 != nil || err3 != nil || r.URL.Query().Get("state") != state.Value {',
    '\t\t\thttp.Error(w, "no sign-in in progress here: start at /login", http.StatusBadRequest)',
    '\t\t\treturn',
    '\t\t}',
    '\t\ttoken, err := config.Exchange(r.Context(), r.URL.Query().Get("code"), oauth2.VerifierOption(pkce.Value))',
    '\t\tif err != nil {',
    '\t\t\thttp.Error(w, "code exchange failed: "+err.Error(), http.StatusBadGateway)',
    '\t\t\treturn',
    '\t\t}',
    '\t\trawIDToken, _ := token.Extra("id_token").(string)',
    '\t\tidToken, err := verifier.Verify(r.Context(), rawIDToken) // signature, iss, aud, expiry',
    '\t\tif err != nil || idToken.Nonce != nonce.Value {',
    '\t\t\thttp.Error(w, "invalid id_token", http.StatusBadGateway)',
    '\t\t\treturn',
    '\t\t}',
    '\t\tvar claims struct {',
    '\t\t\tEmail string `json:"email"`',
    '\t\t\tName  string `json:"name"`',
    '\t\t}',
    '\t\tif err := idToken.Claims(&claims); err != nil {',
    '\t\t\thttp.Error(w, err.Error(), http.StatusInternalServerError)',
    '\t\t\treturn',
    '\t\t}',
    '\t\tfmt.Fprintf(w, "Signed in as %s (%s, sub %s)\\n", claims.Email, claims.Name, idToken.Subject)',
    '\t})',
    '',
    '\tport := os.Getenv("PORT")',
    '\tif port == "" {',
    '\t\tport = redirectURL.Port()',
    '\t}',
    '\tif port == "" {',
    '\t\tport = "8080"',
    '\t}',
    '\tlog.Printf("open %s://%s/login", redirectURL.Scheme, redirectURL.Host)',
    '\tlog.Fatal(http.ListenAndServe(":"+port, nil))',
    '}',
  ].join('\n');
  return {
    id: 'go-oidc',
    title: 'Go: go-oidc with golang.org/x/oauth2',
    install: 'go get github.com/coreos/go-oidc/v3/oidc golang.org/x/oauth2',
    environment: environmentLines(context).join('\n'),
    files: [{ id: 'snippet-go-oidc', name: 'main.go', code }],
    notes: [
      context.isPublic
        ? 'A public client, as a command-line or desktop app on a loopback redirect URL (RFC 8252): no secret, PKCE required.'
        : 'Export the environment, run go run . and open /login.',
    ],
  };
}
