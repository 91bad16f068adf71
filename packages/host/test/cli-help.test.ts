import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../src/internal.js';
import { cli } from './cli-helpers.js';

// Issue 15 items 4 and 7: every command's own --help, `toolwire` alone, and usage errors as one
// line that names the command and its --help (node:util parseArgs's messages reworded).

const env = { TOOLWIRE_STATE: '/nonexistent/toolwire-help-test.json' };

describe('toolwire --help', () => {
  it('toolwire alone prints the usage to stderr, exit 2 (a script that lost its command fails)', async () => {
    const run = await cli([], env);
    expect(run.code).toBe(2);
    expect(run.out).toBe('');
    expect(run.err).toMatch(/^Usage: toolwire <command> \[options\]\n/);
    expect(run.err).toContain('toolwire <command> --help');
    for (const command of COMMANDS) expect(run.err).toContain(`\n  ${command.synopsis} `);
  });

  it('--help prints the same usage to stdout, exit 0', async () => {
    const run = await cli(['--help'], env);
    expect(run.code).toBe(0);
    expect(run.err).toBe('');
    expect(run.out).toBe((await cli([], env)).err);
  });

  it.each(COMMANDS.map((command) => [command.name]))(
    'toolwire %s --help: its usage, options, examples and exit codes',
    async (name) => {
      const command = COMMANDS.find((entry) => entry.name === name);
      for (const argv of [
        [name, '--help'],
        [name, '-h'],
        ['--help', name],
      ]) {
        const run = await cli(argv, env);
        expect(run.code, argv.join(' ')).toBe(0);
        expect(run.err).toBe('');
        expect(run.out).toMatch(new RegExp(`^Usage: toolwire ${name}\\b.*\\[options\\]\\n`));
        expect(run.out).toContain(command?.summary[0]);
        expect(run.out).toMatch(/\nOptions:\n/);
        expect(run.out).toMatch(/\nExamples:\n {2}toolwire /);
        expect(run.out).toMatch(/\nExit codes: 0 /);
        expect(run.out).not.toContain('Commands:'); // not the overall usage
        // Every example is a command line of this command.
        const examples = run.out.split('\nExamples:\n')[1]?.split('\n\nExit codes')[0] ?? '';
        for (const line of examples.split('\n')) expect(line).toMatch(`toolwire ${name}`);
      }
    },
  );

  it('each command lists exactly the options it accepts, no hidden alias, no other command’s', async () => {
    const flag = (line: string) => /^ {2}(?:-\w, )?(--[a-z-]+)/.exec(line)?.[1];
    for (const command of COMMANDS) {
      const out = (await cli([command.name, '--help'], env)).out;
      const section = out.split('\nOptions:\n')[1]?.split('\n\nExamples:')[0] ?? '';
      const listed = section.split('\n').map(flag).filter(Boolean);
      const accepted = new Set([
        ...command.options({}),
        ...command.options({ attach: true }),
        'help',
      ]);
      for (const option of listed) expect(accepted, command.name).toContain(option?.slice(2));
      for (const option of accepted) {
        if (option === 'origin' || option === 'max-policy') continue; // hidden aliases
        expect(listed, `${command.name} --${option}`).toContain(`--${option}`);
      }
    }
  });

  it('client commands describe --token as the control secret; host and mcp as the page token', async () => {
    expect((await cli(['call', '--help'], env)).out).toMatch(
      /--token <secret> +the control API's secret/,
    );
    expect((await cli(['host', '--help'], env)).out).toMatch(/--token <token> +the page token/);
    const mcp = (await cli(['mcp', '--help'], env)).out;
    expect(mcp).toContain('toolwire_pair');
    expect(mcp).toContain('3 --attach and no host answers');
  });
});

describe('usage errors: one line, the command named, its --help', () => {
  it.each([
    [['call', 'x', '--foo'], 'toolwire call: unknown option --foo; see toolwire call --help'],
    [['tools', '-z'], 'toolwire tools: unknown option -z; see toolwire tools --help'],
    [['host', '--port'], 'toolwire host: --port needs a value; see toolwire host --help'],
    [['call', 'x', '--args'], 'toolwire call: --args needs a value; see toolwire call --help'],
    [
      ['sessions', '--json=yes'],
      'toolwire sessions: --json takes no value; see toolwire sessions --help',
    ],
    [
      ['sessions', '--port', '1'],
      'toolwire sessions: --port is not an option of this command; see toolwire sessions --help',
    ],
    [['call'], 'toolwire call: TOOL_ID is missing; see toolwire call --help'],
    [['call', 'a', '{}', 'b'], 'toolwire call: unexpected argument "b"; see toolwire call --help'],
    [
      ['mcp', '--port', 'x'],
      'toolwire mcp: --port needs a whole number, not "x"; see toolwire mcp --help',
    ],
    [['serve'], 'toolwire: unknown command "serve"; see toolwire --help'],
    [['--bogus'], 'toolwire: unknown option --bogus; see toolwire --help'],
  ])('%j', async (argv, line) => {
    const run = await cli(argv, env);
    expect(run.code).toBe(2);
    expect(run.out).toBe('');
    expect(run.err).toBe(`${line}\n`);
  });
});
