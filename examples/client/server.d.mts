/** Types for server.mjs, so that the TypeScript tests can start the example client. */
import type { FastifyInstance } from 'fastify';

export interface ExampleClientOptions {
  /** Latch's base URL (LATCH_ISSUER, default http://localhost:3000). */
  issuer?: string;
  /** LATCH_CLIENT_ID. */
  clientId?: string;
  /** LATCH_CLIENT_SECRET. */
  clientSecret?: string;
  /** Client authentication at the token endpoint (LATCH_CLIENT_AUTH, default basic). */
  auth?: 'basic' | 'post';
  /** How the access token is sent to userinfo (LATCH_USERINFO_HEADER, default bearer). */
  userinfoHeader?: 'bearer' | 'bare';
  /** Use PKCE S256 (LATCH_USE_PKCE, default on). */
  pkce?: boolean;
  /** PORT, default 4000; 0 picks a free one. */
  port?: number;
  /** HOST, default 127.0.0.1. */
  host?: string;
  /** The URL browsers reach this client at (EXAMPLE_PUBLIC_URL), default the listening address. */
  publicUrl?: string;
  /** The fetch used for the back-channel calls to Latch (tests pass a recording one). */
  fetch?: typeof fetch;
  logger?: boolean | object;
}

export interface RunningExampleClient {
  app: FastifyInstance;
  /** Where the browser reaches the client, e.g. http://127.0.0.1:4000. */
  url: string;
  /** `${url}/callback`: the URI to register with Latch. */
  redirectUri: string;
  close(): Promise<void>;
}

export function startExampleClient(options?: ExampleClientOptions): Promise<RunningExampleClient>;
