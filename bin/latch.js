#!/usr/bin/env node
// The `latch` command: runs the compiled and bundled CLI (dist/bundle/, built by `npm install` through the `prepare`
// script: tsc, then scripts/bundle-cli.mjs).
import module from 'node:module';

// Node 22.1+ keeps V8's compiled code of Latch and its dependencies on disk (NODE_COMPILE_CACHE, else a folder in
// the temporary directory) and reuses it at the next start: `latch client list` and the like, which scripts run
// often, start in about two thirds of the CPU time, and `latch serve` starts sooner. Node 20 has no such cache.
// Enabled before the CLI is imported (a dynamic import, not a static one, which would be loaded first).
module.enableCompileCache?.();
const { runCli } = await import('../dist/bundle/main.js');

process.exitCode = await runCli(process.argv.slice(2));
