#!/usr/bin/env node
// The `toolwire` bin; everything lives in command.ts so tests can drive it in-process.
import { runCommand } from './command.js';

process.exitCode = await runCommand(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  onSignal: (handler) => {
    process.once('SIGINT', handler);
    process.once('SIGTERM', handler);
  },
});
