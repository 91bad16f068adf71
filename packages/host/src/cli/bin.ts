#!/usr/bin/env node
/**
 * The `toolwire` bin; everything lives in run.ts so tests can drive it in-process. Whatever
 * goes wrong ends as one line on stderr, never a stack trace.
 */
import { escapeLine } from '../shared/terminal-text.js';
import { runCommand } from './run.js';

try {
  process.exitCode = await runCommand(process.argv.slice(2), {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    onSignal: (handler) => {
      process.once('SIGINT', handler);
      process.once('SIGTERM', handler);
    },
    onInterrupt: (handler) => {
      process.on('SIGINT', handler);
      return () => void process.off('SIGINT', handler);
    },
  });
} catch (error) {
  process.stderr.write(`toolwire: ${escapeLine(String((error as Error)?.message ?? error))}\n`);
  process.exitCode = 1;
}
