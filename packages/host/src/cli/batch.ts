/** `toolwire batch FILE`: calls run in order by the page; a table of what each answered. */
import type { Readable } from 'node:stream';
import { grantHint } from '../shared/errors.js';
import { CliFailure, clientCommand, readJsonArgument, readText } from './client.js';
import { EXIT } from './command.js';
import type { Loose } from './format.js';
import { clip, formatTable, printLine } from './format.js';

async function readStdin(stdin: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

export const batch = clientCommand({
  name: 'batch',
  synopsis: 'batch FILE',
  summary: [
    'Run a batch of calls (a JSON array of {toolId, arguments}, or',
    '{calls: [...]}); FILE may be - for stdin, or the JSON itself.',
  ],
  options: ['session', 'continue-on-error', 'timeout'],
  notes: [
    '',
    '--timeout covers the whole batch. Ctrl-C cancels the batch at the page and prints',
    'the outcome (exit 130); a second Ctrl-C quits at once.',
  ],
  examples: [
    'toolwire batch calls.json   # [{"toolId":"notes.add","arguments":{"text":"a"}}, ...]',
    'toolwire batch \'[{"toolId":"notes.add","arguments":{"text":"a"}}]\'',
    'echo \'[{"toolId":"notes.tags"}]\' | toolwire batch -',
    'toolwire batch calls.json --continue-on-error --json',
  ],
  positional: { label: 'FILE', field: 'file' },
  async run({ args, io, session, callPage, out, json }) {
    const file = args.file as string;
    // JSON given in place of a file name, as `call` takes its arguments: it starts with [ or {.
    const inline = /^\s*[[{]/.test(file);
    const text = file === '-' ? await readStdin(io.stdin) : inline ? file : readText(file);
    const batch = readJsonArgument(
      text,
      file === '-' ? 'stdin' : inline ? 'the batch' : file,
    ) as Loose;
    const calls = Array.isArray(batch) ? batch : batch?.calls;
    if (!Array.isArray(calls)) {
      throw new CliFailure(
        EXIT.usage,
        'a batch file is a JSON array of calls, or {"calls": [...]}',
      );
    }
    const continueOnError = args.continueOnError ?? batch?.continueOnError === true;
    const answer = await callPage('/v1/batch', {
      ...session,
      calls,
      ...(continueOnError ? { continueOnError: true } : {}),
      ...(args.timeoutMs === undefined ? {} : { timeoutMs: args.timeoutMs }),
    });
    const result = answer.result;
    if (args.json) {
      json(answer);
    } else {
      out(
        formatTable(
          ['#', 'TOOL', 'OK', 'RESULT'],
          result.results.map((item: Loose) => [
            String(item.index),
            String(item.toolId ?? '-'),
            item.success ? 'yes' : 'no',
            item.success
              ? clip(
                  typeof item.result === 'string'
                    ? item.result
                    : (JSON.stringify(item.result) ?? 'null'),
                  70,
                )
              : clip(`${item.error?.code}: ${item.error?.message}`, 70),
          ]),
        ),
      );
      out(
        `${result.completed} of ${result.requested} completed${result.stoppedEarly ? ', stopped early' : ''}\n`,
      );
    }
    if (!result.success) {
      const failed = result.results.find((item: Loose) => !item.success);
      const hint = grantHint(String(failed?.error?.code), failed?.error?.details);
      printLine(
        io.stderr,
        `toolwire: batch call ${failed?.index ?? '?'} failed: ${failed?.error?.code ?? 'error'}: ${failed?.error?.message ?? ''}${hint ? ` (${hint})` : ''}`,
      );
      return EXIT.failed;
    }
    return EXIT.ok;
  },
});
