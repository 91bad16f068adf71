import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { until } from '../../../test-support/wait.js';
import { runCommand } from '../src/index.js';
import { parseCommand } from '../src/internal.js';
import { captureIo, tempDir } from './cli-helpers.js';
import { FakePage } from './helpers.js';

describe('parseCommand', () => {
  it('has safe defaults', () => {
    const parsed = parseCommand(['host']);
    expect(parsed).toEqual({
      command: 'host',
      options: { port: 45124, pollIntervalMs: 0 },
      quiet: false,
    });
  });

  it('reads every option; --origin repeats; the token may come from the environment', () => {
    const parsed = parseCommand(
      [
        'mcp',
        '--port=0',
        '--allow-origin',
        'http://localhost:5173/',
        '--allow-origin',
        'http://127.0.0.1:5174',
        '--max-tool-policy',
        'Delete',
        '--page',
        'http://localhost:5173/',
        '-q',
      ],
      { TOOLWIRE_TOKEN: 'a-token-of-twenty-chars' },
    );
    expect(parsed).toMatchObject({
      command: 'mcp',
      quiet: true,
      page: 'http://localhost:5173/',
      options: {
        port: 0,
        token: 'a-token-of-twenty-chars',
        origins: ['http://localhost:5173', 'http://127.0.0.1:5174'],
        maxToolPolicy: 'critical',
      },
    });
  });

  it('--forwarded-port repeats, and is a port', () => {
    expect(
      parseCommand(['host', '--forwarded-port', '9000', '--forwarded-port=9001']).options
        .forwardedPorts,
    ).toEqual([9000, 9001]);
    expect(parseCommand(['host']).options.forwardedPorts).toBeUndefined();
    expect(() => parseCommand(['host', '--forwarded-port', '0'])).toThrow(/1 to 65535/);
    expect(() => parseCommand(['host', '--forwarded-port', 'x'])).toThrow(/whole number/);
  });

  it("--timeout is a call's deadline: the host's default for host and mcp, each call's attached", () => {
    expect(parseCommand(['host', '--timeout', '5000']).options.callTimeoutMs).toBe(5000);
    expect(parseCommand(['mcp', '--timeout', '5000']).options.callTimeoutMs).toBe(5000);
    // Not given: the host's own 60 s applies (and an attached bridge sends none).
    expect(parseCommand(['mcp']).options.callTimeoutMs).toBeUndefined();
    expect(parseCommand(['mcp', '--attach', '--timeout', '700']).attach?.timeoutMs).toBe(700);
    expect(parseCommand(['call', 'x', '--timeout', '900']).client?.timeoutMs).toBe(900);
    // It asks for no host of its own: mcp still attaches when a host runs.
    expect(parseCommand(['mcp', '--timeout', '5000']).ownHost).toBeUndefined();
    expect(() => parseCommand(['host', '--timeout', '0'])).toThrow(/whole number of milliseconds/);
  });

  it('--compress on|off|auto: whether pages gzip large results (absent: the host decides)', () => {
    for (const mode of ['on', 'off', 'auto'] as const) {
      expect(parseCommand(['host', '--compress', mode]).options.compress).toBe(mode);
    }
    expect(parseCommand(['host']).options.compress).toBeUndefined();
  });

  it('keeps --origin and --max-policy as hidden aliases; accepts an explicit *', () => {
    expect(parseCommand(['host', '--origin', '*', '--max-policy', 'write']).options).toMatchObject({
      origins: ['*'],
      maxToolPolicy: 'write',
    });
  });

  it.each([
    [[], /name a command/],
    [['serve'], /unknown command "serve"/],
    [['host', '--port=-1'], /whole number/],
    [['host', '--port', '1.5'], /whole number/],
    [['host', '--bogus'], /unknown option --bogus/],
    [['host', '--token', 'short'], /16 characters/],
    [['host', '--max-tool-policy', 'root'], /read, write or critical/],
    [['host', '--allow-origin', 'localhost'], /needs an origin/],
    [['host', '--page', 'not a url'], /absolute URL/],
    [['host', '--compress', 'yes'], /auto, on or off/],
  ])('refuses %j', (argv, message) => {
    expect(() => parseCommand(argv)).toThrow(message);
  });
});

/** Captured stdio, and a state file of the test's own. */
const io = (stdin = new PassThrough()) =>
  captureIo({ TOOLWIRE_STATE: join(tempDir('toolwire-cmd-'), 'host.json') }, stdin);

describe('runCommand', () => {
  it('prints usage with exit code 2 on a bad command line', async () => {
    const run = io();
    expect(await runCommand(['nope'], run.io)).toBe(2);
    expect(run.err()).toBe('toolwire: unknown command "nope"; see toolwire --help\n');
  });

  it('host: prints the full token only in the connect line, and stops on a signal', async () => {
    const run = io();
    const token = 'cli-test-token-0123456789';
    const exit = runCommand(
      ['host', '--port', '0', '--token', token, '--allow-origin', '*'],
      run.io,
    );
    await until(() => run.err().includes('connect a page'));
    expect(run.err()).toContain("warning: --allow-origin '*'");
    const url = /url: '([^']+)'/.exec(run.err())?.[1] as string;
    expect(url).toContain(token);
    const page = await FakePage.connect(url);
    await until(() => run.err().includes('catalog'));
    run.signal();
    expect(await exit).toBe(0);
    await page.closed;
    const lines = run.err().split('\n');
    expect(lines.filter((line) => line.includes(token))).toHaveLength(1);
    expect(run.err()).toMatch(/session \w+ connected/);
    expect(run.out()).toBe('');
  });

  it('mcp: JSON-RPC on stdout only; ends when stdin ends', async () => {
    const stdin = new PassThrough();
    const run = io(stdin);
    const exit = runCommand(['mcp', '--port', '0'], run.io);
    await until(() => run.err().includes('connect a page'));
    stdin.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
    await until(() => run.out().includes('"id":1'));
    stdin.end();
    expect(await exit).toBe(0);
    expect(run.out().endsWith('\n')).toBe(true);
    expect(JSON.parse(run.out())).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
  });
});

describe('startup lines, once (issue 15 item 7)', () => {
  it.each([
    [['host'], [], /no origin is allowed/],
    [['host'], ['--allow-origin', '*'], /warning: --allow-origin '\*'/],
    [['host'], ['--page', 'http://localhost:5173/app/'], /pages pair from links only/],
    [
      ['mcp'],
      ['--allow-origin', 'http://localhost:5173'],
      /allowed origins: http:\/\/localhost:5173/,
    ],
  ])(
    '%j %j: the address, the allow-list and each warning are printed once',
    async (command, extra, line) => {
      const run = io();
      const stdin = run.io.stdin as PassThrough;
      const exit = runCommand([...command, '--port', '0', ...extra], run.io);
      await until(() => run.err().includes('connect a page'));
      const port = /ws:\/\/127\.0\.0\.1:(\d+)/.exec(run.err())?.[1];
      const lines = run.err().split('\n');
      // The banner and the connect line name the address; nothing else before a page connects.
      expect(lines.filter((entry) => entry.includes(`127.0.0.1:${port}/toolwire`))).toHaveLength(2);
      expect(lines.filter((entry) => line.test(entry))).toHaveLength(1);
      expect(
        lines.filter(
          (entry) =>
            /origin/i.test(entry) &&
            !entry.startsWith('connect a page') &&
            !entry.startsWith('or '),
        ),
      ).toHaveLength(1);
      expect(lines.filter((entry) => entry.includes('warning'))).toHaveLength(
        extra[1] === '*' ? 1 : 0,
      );
      if (command[0] === 'mcp') stdin.end();
      else run.signal();
      expect(await exit).toBe(0);
    },
  );
});
