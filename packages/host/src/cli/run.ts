/**
 * The `toolwire` CLI: reads the command line and runs the command it names (commands.ts).
 * bin.ts is the process around it, so tests drive the CLI in-process through `runCommand`.
 *
 * - Options are checked strictly: one a command does not take is a usage error (exit 2), as is
 *   anything else that does not parse. A usage error is one line: the command, what is wrong
 *   (node:util parseArgs's messages reworded), and that command's --help.
 * - `toolwire` alone prints the usage to stderr, exit 2; `--help` prints it (or, after a
 *   command, that command's help) to stdout, exit 0.
 * - Every line printed goes through shared/terminal-text.ts: a page's ids, titles, URLs,
 *   descriptions, results and messages never reach the terminal with a raw control character.
 */
import { parseArgs } from 'node:util';
import { OPTIONS } from './args.js';
import type { CommandIo, Env, OptionValues, ParsedCommand } from './command.js';
import { EXIT, UsageError } from './command.js';
import { findCommand } from './commands.js';
import { printLine } from './format.js';
import { commandHelp, usage, version } from './help.js';

/** Node's parseArgs messages, reworded as one line about the command line. */
function reworded(error: unknown, command: string | undefined): UsageError {
  const { code, message } = error as { code?: string; message: string };
  const flag = /'(-[^' ]+)/.exec(message)?.[1] ?? '';
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    return new UsageError(`unknown option ${flag}`, command);
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && message.includes('argument missing')) {
    return new UsageError(`${flag} needs a value`, command);
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && message.includes('is ambiguous')) {
    // A value that starts with a dash (a pairing id may): it must be joined with `=`.
    return new UsageError(`${flag}'s value starts with "-": write ${flag}=VALUE`, command);
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    return new UsageError(`${flag} takes no value`, command);
  }
  return new UsageError(message.split('\n')[0] ?? message, command);
}

function strictParse(argv: string[], command: string | undefined) {
  try {
    return parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      tokens: true,
      options: OPTIONS,
    });
  } catch (error) {
    throw reworded(error, command);
  }
}

export function parseCommand(argv: string[], env: Env = {}): ParsedCommand {
  // A first, lenient pass finds the command, so a usage error can name it and its --help.
  const loose = parseArgs({ args: argv, allowPositionals: true, strict: false, options: OPTIONS });
  const named = loose.positionals[0];
  const command = findCommand(named);
  if (loose.values.help) {
    return { command: 'help', options: {}, quiet: false, ...(command ? { topic: named } : {}) };
  }
  const { values, positionals, tokens } = strictParse(argv, command?.name);
  const quiet = values.quiet === true;
  if (values.version) return { command: 'version', options: {}, quiet };
  const [name, ...extra] = positionals;
  if (!command) {
    throw new UsageError(name ? `unknown command "${name}"` : 'name a command');
  }
  const allowed = command.options(values as OptionValues);
  for (const token of tokens) {
    if (token.kind === 'option' && !allowed.includes(token.name)) {
      throw new UsageError(`${token.rawName} is not an option of this command`, command.name);
    }
  }
  try {
    return command.parse(extra, values as OptionValues, env);
  } catch (error) {
    if (error instanceof UsageError && error.command === undefined) {
      throw new UsageError(error.message, command.name);
    }
    throw error;
  }
}

/** "toolwire call: unknown option --foo; see toolwire call --help" (one line). */
function usageLine(error: UsageError): string {
  const who = error.command ? `toolwire ${error.command}` : 'toolwire';
  return `${who}: ${error.message.replace(/\.$/, '')}; see ${who} --help`;
}

/** Runs the CLI; resolves with the exit code (for `host` and `mcp`, once the host stopped). */
export async function runCommand(argv: string[], io: CommandIo): Promise<number> {
  if (argv.length === 0) {
    // Nothing asked for: the usage, as a usage error (stderr, exit 2), so a script that lost its
    // command fails instead of "succeeding" with a help text on stdout.
    io.stderr.write(usage());
    return EXIT.usage;
  }
  let parsed: ParsedCommand;
  try {
    parsed = parseCommand(argv, io.env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    printLine(io.stderr, usageLine(error));
    return EXIT.usage;
  }
  if (parsed.command === 'help') {
    const topic = findCommand(parsed.topic);
    io.stdout.write(topic ? commandHelp(topic) : usage());
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
