/**
 * Helpers for CLI tests: `runCommand` in-process with captured streams, `toolwire host` run
 * in-process, and the CLI as real processes (from source through tsx, so the test runs what the
 * tree holds whether or not dist/ was built).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { until } from '../../../test-support/wait.js';
import { runCommand } from '../src/index.js';

/** Any character a terminal acts on, \n and \t aside (they are legal in a body). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point.
export const RAW_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

export type Env = Record<string, string | undefined>;

/**
 * Where hosts started by these helpers keep their pairings unless a test names a place
 * (TOOLWIRE_HOME): never the user's own state directory.
 */
export const TEST_HOME = mkdtempSync(join(tmpdir(), 'toolwire-home-'));
const withHome = (env: Env): Env => ({ TOOLWIRE_HOME: TEST_HOME, ...env });

export function captureIo(env: Env, stdin = new PassThrough()) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk) => {
    out += chunk;
  });
  stderr.on('data', (chunk) => {
    err += chunk;
  });
  let signal: () => void = () => {};
  const interrupts = new Set<() => void>();
  return {
    io: {
      stdin,
      stdout,
      stderr,
      env: withHome(env),
      onSignal: (handler: () => void) => (signal = handler),
      onInterrupt: (handler: () => void) => {
        interrupts.add(handler);
        return () => void interrupts.delete(handler);
      },
    },
    out: () => out,
    err: () => err,
    signal: () => signal(),
    /** A Ctrl-C (SIGINT) as `call` and `batch` hear it. */
    interrupt: () => {
      for (const handler of [...interrupts]) handler();
    },
  };
}

/** One client command in-process. */
export async function cli(argv: string[], env: Env, stdin?: PassThrough) {
  const run = captureIo(env, stdin);
  const code = await runCommand(argv, run.io);
  return { code, out: run.out(), err: run.err() };
}

export const PAGE_TOKEN = 'cli-helpers-page-token-0123456789';

/** `toolwire host --port 0 --token PAGE_TOKEN --allow-origin * EXTRA`, in-process. */
export async function hostInProcess(env: Env, extra: string[] = []) {
  const run = captureIo(env);
  const argv = ['host', '--port', '0', '--token', PAGE_TOKEN, '--allow-origin', '*', ...extra];
  const exit = runCommand(argv, run.io);
  await until(() => run.err().includes('connect a page') || run.err().includes('could not'));
  const url = /url: '([^']+)'/.exec(run.err())?.[1] as string;
  return {
    url,
    err: run.err,
    exit,
    stop: () => {
      run.signal();
      return exit;
    },
  };
}

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

const CLI_SOURCE = fileURLToPath(new URL('../src/cli/bin.ts', import.meta.url));

/** How to start `toolwire ARGS` from source as a process: Node's path and its arguments. */
export const cliCommand = (args: string[]) => ({
  command: process.execPath,
  args: ['--conditions=@toolwire/source', '--import', 'tsx', CLI_SOURCE, ...args],
});

export interface Exited {
  code: number | null;
  signal: NodeJS.Signals | null;
  out: string;
  err: string;
}

/** `toolwire ARGS` as a process of its own. */
export class CliProcess {
  readonly child: ChildProcess;
  out = '';
  err = '';
  readonly exited: Promise<Exited>;

  constructor(args: string[], env: Env) {
    const { command, args: argv } = cliCommand(args);
    this.child = spawn(command, argv, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH ?? '', ...withHome(env) },
    });
    this.child.stdout?.on('data', (chunk) => {
      this.out += chunk;
    });
    this.child.stderr?.on('data', (chunk) => {
      this.err += chunk;
    });
    this.exited = new Promise((resolve) => {
      this.child.once('close', (code, signal) =>
        resolve({ code, signal, out: this.out, err: this.err }),
      );
    });
  }

  /**
   * Resolves with the first match of `pattern` in stderr, once there is one; rejects, with what
   * the process printed, if it exits first. No clock: the test's own timeout is the bound.
   */
  errMatching(pattern: RegExp): Promise<RegExpExecArray> {
    return new Promise((resolve, reject) => {
      const stderr = this.child.stderr;
      // Added after the constructor's listener, so `this.err` already holds each chunk.
      const check = () => {
        const match = pattern.exec(this.err);
        if (!match) return;
        stderr?.off('data', check);
        resolve(match);
      };
      stderr?.on('data', check);
      check();
      void this.exited.then((exit) =>
        reject(
          new Error(
            `exited (${exit.code ?? exit.signal}) before printing ${pattern}; stderr: ${exit.err}`,
          ),
        ),
      );
    });
  }

  kill(signal: NodeJS.Signals): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
  }
}

/** One client command as a process; resolves when it exits. */
export function cliProcess(args: string[], env: Env): Promise<Exited> {
  return new CliProcess(args, env).exited;
}

/** `toolwire mcp ARGS` in-process, a JSON-RPC client on its stdio (initialized by `open`). */
export function mcpInProcess(argv: string[], env: Env) {
  const stdin = new PassThrough();
  const run = captureIo(env, stdin);
  const exit = runCommand(['mcp', ...argv], run.io);
  const messages: any[] = [];
  createInterface({ input: run.io.stdout }).on('line', (line) => messages.push(JSON.parse(line)));
  let nextId = 0;
  const rpc = async (method: string, params: object = {}): Promise<any> => {
    const id = ++nextId;
    stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    await until(() => messages.some((message) => message.id === id));
    return messages.find((message) => message.id === id);
  };
  return {
    rpc,
    messages,
    err: run.err,
    exit,
    /** `initialize` and `notifications/initialized`; resolves the initialize result. */
    async open() {
      const answer = await rpc('initialize', {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'test', version: '0' },
      });
      stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
      return answer.result;
    },
    /** Ends stdin (the client went away); resolves the exit code. */
    stop() {
      stdin.end();
      return exit;
    },
  };
}
