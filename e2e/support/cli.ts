/**
 * The built `toolwire` bin as processes, for e2e tests: `toolwire host` spawned with a state
 * file of its own, and each client command (`sessions`, `tools`, `call`, ...) run as a process
 * that finds that host through the state file.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from '@playwright/test';

export const CLI = fileURLToPath(new URL('../../packages/host/dist/cli.js', import.meta.url));

const dir = mkdtempSync(join(tmpdir(), 'toolwire-cli-e2e-'));
let counter = 0;
/**
 * Where the processes keep their pairings unless a test names a place (TOOLWIRE_HOME): never
 * the user's own state directory.
 */
export const E2E_HOME = mkdtempSync(join(tmpdir(), 'toolwire-home-e2e-'));

export interface Run {
  code: number;
  out: string;
  err: string;
}

/**
 * One `toolwire ARGS` process; never rejects (the exit code is in the result). `cli` is the
 * workspace's build unless a test runs another copy (an installed tarball's).
 */
export function toolwire(args: string[], env: Record<string, string>, cli = CLI): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [cli, ...args],
      {
        env: { PATH: process.env.PATH ?? '', TOOLWIRE_HOME: E2E_HOME, ...env },
        timeout: 25_000,
        maxBuffer: 64 << 20,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, out: stdout, err: stderr });
      },
    );
  });
}

/** `toolwire host --port 0 ARGS` (`env` beside its own state file), its stderr collected. */
export class HostProcess {
  readonly child: ChildProcess;
  /** The environment client commands need to find this host. */
  readonly env: Record<string, string>;
  stderr = '';

  constructor(args: string[], cli = CLI, env: Record<string, string> = {}) {
    this.env = { TOOLWIRE_STATE: join(dir, `state-${++counter}.json`), ...env };
    // Port 0 unless the test names one (a restart on the port the host had).
    const port = args.includes('--port') ? [] : ['--port', '0'];
    this.child = spawn(process.execPath, [cli, 'host', ...port, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH ?? '', TOOLWIRE_HOME: E2E_HOME, ...this.env },
    });
    this.child.stderr?.on('data', (chunk) => {
      this.stderr += chunk;
    });
  }

  /** The ws:// address (with its token) pages connect to, once the control API is up too. */
  async url(): Promise<string> {
    await expect.poll(() => /url: '([^']+)'/.exec(this.stderr)?.[1]).toBeTruthy();
    await expect.poll(() => this.stderr).toContain('control API on');
    return /url: '([^']+)'/.exec(this.stderr)?.[1] as string;
  }

  /** The pairing link `--page URL` made the host print (a single-use code, not the token). */
  async pairingLink(): Promise<string> {
    await expect.poll(() => /or open: (\S+)/.exec(this.stderr)?.[1]).toBeTruthy();
    await expect.poll(() => this.stderr).toContain('control API on');
    return /or open: (\S+)/.exec(this.stderr)?.[1] as string;
  }

  stop(): Promise<number | null> {
    return new Promise((resolve) => {
      if (this.child.exitCode !== null) resolve(this.child.exitCode);
      else {
        this.child.once('exit', (code) => resolve(code));
        this.child.kill('SIGTERM');
      }
    });
  }
}
