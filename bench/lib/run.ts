/** How a bench's main() ends: the total time line, and one exit path for failures. */
import { performance } from 'node:perf_hooks';
import { BenchFailure } from './harness.js';

/** Prints a blank line, then `total N.N s`: the wall time since `started` (performance.now()). */
export function printTotal(started: number): void {
  console.log('');
  console.log(`total ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

/** Runs a bench's main(): a failed sanity check or a crash is printed and sets exit code 1. */
export function runBench(main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    if (error instanceof BenchFailure) {
      console.error(`\nSANITY CHECK FAILED: ${error.message}`);
    } else {
      console.error('\nBENCHMARK CRASHED:', error);
    }
    process.exitCode = 1;
  });
}
