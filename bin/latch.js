#!/usr/bin/env node
// The `latch` command: runs the compiled CLI (built by `npm install` through the `prepare` script).
import { runCli } from '../dist/cli/main.js';

process.exitCode = await runCli(process.argv.slice(2));
