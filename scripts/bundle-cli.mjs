#!/usr/bin/env node
// Bundles the compiled `latch` command (dist/cli/main.js, from tsc) into dist/bundle/ with esbuild, which
// bin/latch.js runs. Why: Node loads ES modules one file at a time, and a `latch client list` loaded about 500 of
// them (Kysely alone is 280): about 0.5 s of CPU at every start, against about 0.25 s bundled (a bare `node` is 0.11 s). Scripts run the
// command often, and `latch serve` starts sooner. The bundle is split at each dynamic import, so a command still
// loads only what it needs (src/cli/main.ts): `latch client list` does not load the server.
//
// Packages left out of the bundle, loaded from node_modules as before:
// - native addons and what finds its files on disk at run time: better-sqlite3, argon2 (their compiled .node
//   files), pino and thread-stream (pino's transports start worker threads from file paths);
// - packages loaded only when a setting asks for them: pg (PostgreSQL), ioredis (Redis), nodemailer (SMTP),
//   @opentelemetry/* (tracing), prom-client (metrics). Left out, they load only when used, as they did.
// Source maps: NODE_OPTIONS=--enable-source-maps shows stack traces in terms of src/.
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const OUT = join(ROOT, 'dist', 'bundle');

const EXTERNAL = [
  'better-sqlite3',
  'argon2',
  'pino',
  'thread-stream',
  'pg',
  'ioredis',
  'nodemailer',
  '@opentelemetry/*',
  'prom-client',
];

rmSync(OUT, { recursive: true, force: true });
// On any error esbuild rejects, and the script exits non-zero, so `npm run build` fails.
await build({
  entryPoints: [join(ROOT, 'dist', 'cli', 'main.js')],
  outdir: OUT,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  external: EXTERNAL,
  chunkNames: 'chunks/[name]-[hash]',
  sourcemap: 'linked',
  // CommonJS packages in the bundle (fastify and its plugins) call require() for Node's own modules; an ES module
  // has no require of its own.
  banner: { js: "import { createRequire as __latchCreateRequire } from 'node:module'; const require = __latchCreateRequire(import.meta.url);" },
  logLevel: 'warning',
});
