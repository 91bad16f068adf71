/**
 * The `toolwire` CLI: reads the command line and runs the command it names (commands.ts).
 * bin.ts is the process around it, so tests drive the CLI in-process through `runCommand`.
 *
 * - Options are checked strictly: one a command does not take is a usage error (exit 2), as is
 *   anything else that does not parse; the line says what, then points to --help.
 * - Every line printed goes through shared/terminal-text.ts: a page's ids, titles, URLs,
 *   descriptions, results and messages never reach the terminal with a raw control character.
 */
import { parseArgs } from 'node:util';
import { OPTIONS } from './args.js';
import type { CommandIo, Env, OptionValues, ParsedCommand } from './command.js';
import { EXIT, UsageError } from './command.js';
import { findCommand } from './commands.js';
import { printLine } from './format.js';
import { usage, version } from './help.js';

export function parseCommand(argv: string[], env: Env = {}): ParsedCommand {
  const { values, positionals, tokens } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    tokens: true,
    options: OPTIONS,
  });
  const quiet = values.quiet === true;
  if (values.help) return { command: 'help', options: {}, quiet };
  if (values.version) return { command: 'version', options: {}, quiet };
  const [name, ...extra] = positionals;
  const command = findCommand(name);
  if (!command) throw new UsageError(name ? `Unknown command "${name}".` : 'Name a command.');
  const allowed = command.options(values as OptionValues);
  for (const token of tokens) {
    if (token.kind === 'option' && !allowed.includes(token.name)) {
      throw new UsageError(`toolwire ${name} has no option --${token.name}.`);
    }
  }
  return command.parse(extra, values as OptionValues, env);
}

/** Runs the CLI; resolves with the exit code (for `host` and `mcp`, once the host stopped). */
export async function runCommand(argv: string[], io: CommandIo): Promise<number> {
  let parsed: ParsedCommand;
  try {
    parsed = parseCommand(argv, io.env);
  } catch (error) {
    printLine(io.stderr, `toolwire: ${(error as Error).message}`);
    printLine(io.stderr, 'Run "toolwire --help" for usage.');
    return EXIT.usage;
  }
  if (parsed.command === 'help') {
    io.stdout.write(usage());
    return EXIT.ok;
  }
  if (parsed.command === 'version') {
    io.stdout.write(version());
    return EXIT.ok;
  }
  const command = findCommand(parsed.command);
  if (!command) throw new TypeError(`No command "${parsed.command}".`); // parseCommand found it
  return command.run(parsed, io);
}
