/**
 * Java (Spring Security's OAuth 2.0 login), Ruby (OmniAuth with omniauth_openid_connect) and PHP
 * (jumbojett/openid-connect-php): each with PKCE (S256), state and nonce, the secret read from the
 * environment. All three run in a back end that keeps a secret: confidential clients only. They are not run
 * by the tests (no JVM build, Ruby or PHP toolchain here): their settings follow each library's documentation.
 */
import { environmentLines, isHttpIssuer, type IntegrationSnippet, type SnippetContext } from './snippet.js';

export function springSecuritySnippet(context: SnippetContext): IntegrationSnippet {
  const callbackPath = new URL(context.redirectUri).pathname;
  const yaml = [
    'spring:',
    '  security:',
    '    oauth2:',
    '      client:',
    '        registration:',
    '          latch:',
    '            client-id: ${LATCH_CLIENT_ID}',
    '            client-secret: ${LATCH_CLIENT_SECRET} # read from the environment: never in the code',
    '            client-authentication-method: client_secret_basic',
    '            authorization-grant-type: authorization_code',
    '            redirect-uri: ${LATCH_REDIRECT_URI}',
    '            scope: openid, email, profile',
    '        provider:',
    '          latch:',
    '            issuer-uri: ${LATCH_ISSUER}',
    '            user-name-attribute: sub',
    'server:',
    '  port: ${PORT:8080}',
  ].join('\n');
  const java = [
    'package com.example.app;',
    '',
    'import org.springframework.context.annotation.Bean;',
    'import org.springframework.context.annotation.Configuration;',
    'import org.springframework.security.config.annotation.web.builders.HttpSecurity;',
    'import org.springframework.security.core.annotation.AuthenticationPrincipal;',
    'import org.springframework.security.oauth2.client.registration.ClientRegistrationRepository;',
    'import org.springframework.security.oauth2.client.web.DefaultOAuth2AuthorizationRequestResolver;',
    'import org.springframework.security.oauth2.client.web.OAuth2AuthorizationRequestCustomizers;',
    'import org.springframework.security.oauth2.core.oidc.user.OidcUser;',
    'import org.springframework.security.web.SecurityFilterChain;',
    'import org.springframework.web.bind.annotation.GetMapping;',
    'import org.springframework.web.bind.annotation.RestController;',
    '',
    '@Configuration',
    'public class SecurityConfig {',
    '    @Bean',
    '    SecurityFilterChain securityFilterChain(HttpSecurity http, ClientRegistrationRepository registrations) throws Exception {',
    '        // PKCE (S256) for a confidential client too: Spring adds it on its own only for public clients.',
    '        var resolver = new DefaultOAuth2AuthorizationRequestResolver(registrations, "/oauth2/authorization");',
    '        resolver.setAuthorizationRequestCustomizer(OAuth2AuthorizationRequestCustomizers.withPkce());',
    '        http',
    '            .authorizeHttpRequests(authorize -> authorize.anyRequest().authenticated())',
    '            .oauth2Login(login -> login',
    '                .authorizationEndpoint(endpoint -> endpoint.authorizationRequestResolver(resolver))',
    '                // The path of LATCH_REDIRECT_URI, where Latch sends people back (Spring\'s default is /login/oauth2/code/latch).',
    `                .redirectionEndpoint(endpoint -> endpoint.baseUri("${callbackPath}")));`,
    '        return http.build();',
    '    }',
    '}',
    '',
    '@RestController',
    'class HomeController {',
    '    @GetMapping("/")',
    '    String home(@AuthenticationPrincipal OidcUser user) {',
    '        return "Signed in as " + user.getEmail();',
    '    }',
    '}',
  ].join('\n');
  return {
    id: 'java-spring-security',
    title: 'Java: Spring Security (Spring Boot)',
    install: 'Spring Boot starters: spring-boot-starter-web, spring-boot-starter-oauth2-client',
    environment: environmentLines(context).join('\n'),
    files: [
      { id: 'snippet-java-spring-security', name: 'src/main/resources/application.yml', code: yaml },
      { id: 'snippet-java-spring-security-config', name: 'src/main/java/com/example/app/SecurityConfig.java', code: java },
    ],
    notes: ['Every page needs a signed-in user; the sign-in starts at /oauth2/authorization/latch (Spring sends people there on its own).'],
  };
}

export function rubyOmniAuthSnippet(context: SnippetContext): IntegrationSnippet {
  // omniauth_openid_connect discovers over https only, whatever the issuer says: for an http:// issuer
  // (a local Latch) the endpoints are given instead, as paths on scheme/host/port and jwks_uri in full.
  const endpointLines = isHttpIssuer(context.issuer)
    ? [
        '  # Your issuer is http:// (a local Latch): the gem discovers over https only, so the endpoints are given here.',
        '  discovery: false,',
      ]
    : ['  discovery: true,'];
  const httpClientOptions = isHttpIssuer(context.issuer)
    ? [
        '    authorization_endpoint: "/oauth2/authorize",',
        '    token_endpoint: "/oauth2/token",',
        '    userinfo_endpoint: "/oauth2/userinfo",',
        '    jwks_uri: "#{issuer}/oauth2/jwks",',
      ]
    : [];
  const initializer = [
    'issuer = URI(ENV.fetch("LATCH_ISSUER"))',
    'redirect_uri = URI(ENV.fetch("LATCH_REDIRECT_URI"))',
    '',
    'Rails.application.config.middleware.use OmniAuth::Builder do',
    '  provider :openid_connect,',
    '  name: :latch,',
    '  issuer: issuer.to_s,',
    ...endpointLines,
    '  scope: %i[openid email profile],',
    '  response_type: :code,',
    '  pkce: true,',
    '  send_nonce: true,',
    '  callback_path: redirect_uri.path,',
    '  client_options: {',
    '    scheme: issuer.scheme,',
    '    host: issuer.host,',
    '    port: issuer.port,',
    ...httpClientOptions,
    '    identifier: ENV.fetch("LATCH_CLIENT_ID"),',
    '    secret: ENV.fetch("LATCH_CLIENT_SECRET"), # read from the environment: never in the code',
    '    redirect_uri: redirect_uri.to_s,',
    '  }',
    'end',
  ].join('\n');
  const controller = [
    '# config/routes.rb:  get URI(ENV.fetch("LATCH_REDIRECT_URI")).path, to: "sessions#create"',
    '# The sign-in button (OmniAuth 2 starts with a POST): button_to "Sign in with Latch", "/auth/latch", data: { turbo: false }',
    'class SessionsController < ApplicationController',
    '  def create',
    '    auth = request.env["omniauth.auth"]',
    '    session[:user] = { "sub" => auth.uid, "email" => auth.info.email, "name" => auth.info.name }',
    '    redirect_to root_path, notice: "Signed in as #{auth.info.email}"',
    '  end',
    'end',
  ].join('\n');
  return {
    id: 'ruby-omniauth',
    title: 'Ruby: OmniAuth (Rails) with omniauth_openid_connect',
    install: 'bundle add omniauth_openid_connect omniauth-rails_csrf_protection',
    environment: environmentLines(context).join('\n'),
    files: [
      { id: 'snippet-ruby-omniauth', name: 'config/initializers/omniauth.rb', code: initializer },
      { id: 'snippet-ruby-omniauth-controller', name: 'app/controllers/sessions_controller.rb', code: controller },
    ],
    notes: [],
  };
}

export function phpSnippet(context: SnippetContext): IntegrationSnippet {
  const code = [
    '<?php',
    "require __DIR__ . '/vendor/autoload.php';",
    '',
    'use Jumbojett\\OpenIDConnectClient;',
    '',
    'session_start(); // keeps state, nonce and the PKCE verifier between the redirect and the callback',
    '',
    '$oidc = new OpenIDConnectClient(',
    "    getenv('LATCH_ISSUER'),",
    "    getenv('LATCH_CLIENT_ID'),",
    "    getenv('LATCH_CLIENT_SECRET') // read from the environment: never in the code",
    ');',
    "$oidc->setRedirectURL(getenv('LATCH_REDIRECT_URI'));",
    "$oidc->addScope(['openid', 'email', 'profile']);",
    "$oidc->setCodeChallengeMethod('S256');",
    '',
    '// The first visit sends the browser to Latch; the way back (this same script at the redirect URL)',
    '// checks state, exchanges the code with the PKCE verifier and validates the id_token.',
    '$oidc->authenticate();',
    '',
    "$_SESSION['user'] = ['sub' => $oidc->requestUserInfo('sub'), 'email' => $oidc->requestUserInfo('email')];",
    "echo 'Signed in as ' . htmlspecialchars($_SESSION['user']['email']);",
  ].join('\n');
  return {
    id: 'php-openid-connect',
    title: 'PHP: jumbojett/openid-connect-php',
    install: 'composer require jumbojett/openid-connect-php',
    environment: environmentLines(context).join('\n'),
    files: [{ id: 'snippet-php-openid-connect', name: 'login.php', code }],
    notes: [`Serve this script at the redirect URL (${context.redirectUri}) and send people to it to sign in.`],
  };
}
