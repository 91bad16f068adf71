/** `toolwire call TOOL_ID`: one tool call; its message, result and evidence as bodies. */
import { escapeBody, escapeLine } from '../shared/terminal-text.js';
import { CliFailure, clientCommand, readJsonArgument } from './client.js';
import { EXIT } from './command.js';
import type { Loose } from './format.js';
import { render } from './format.js';

export const call = clientCommand({
  name: 'call',
  synopsis: 'call TOOL_ID [ARGS]',
  summary: ['Call a tool; ARGS is its arguments as a JSON object (or use --args).'],
  options: ['session', 'args', 'after', 'timeout'],
  notes: [
    '',
    'Prints the result (JSON, or text as it is); --json prints the whole answer.',
    "A call still running after a second shows the page's progress on stderr",
    '(progress 3/10 message). Ctrl-C cancels the call at the page and prints the',
    'outcome (exit 130); a second Ctrl-C quits at once.',
  ],
  examples: [
    'toolwire call notes.tags',
    'toolwire call notes.add \'{"text":"hello"}\'',
    'toolwire call notes.add --args \'{"text":"hello"}\'',
    'toolwire call notes.add --args @args.json --after visualTree --json',
    'toolwire call report.build --timeout 120000   # the page may stop it sooner',
  ],
  positional: { label: 'TOOL_ID', field: 'toolId' },
  argsPositional: 'ARGS',
  async run({ args, session, callPage, out, json }) {
    const callArgs = args.args === undefined ? {} : readJsonArgument(args.args, 'the arguments');
    if (callArgs === null || typeof callArgs !== 'object' || Array.isArray(callArgs)) {
      throw new CliFailure(
        EXIT.usage,
        'the arguments must be a JSON object, such as \'{"sku":"A-1"}\'',
      );
    }
    const answer = await callPage('/v1/call', {
      ...session,
      toolId: args.toolId,
      arguments: callArgs,
      ...(args.after?.length ? { after: { include: args.after } } : {}),
      ...(args.timeoutMs === undefined ? {} : { timeoutMs: args.timeoutMs }),
    });
    if (args.json) {
      json(answer);
      return EXIT.ok;
    }
    const result = answer.result;
    if (result.message) out(`${escapeBody(String(result.message))}\n`);
    out(`${render(result.result)}\n`);
    if (result.evidence) {
      for (const [key, evidence] of Object.entries(result.evidence)) {
        const shown = (evidence as Loose).success
          ? (evidence as Loose).result
          : (evidence as Loose).error;
        out(`\n${escapeLine(key)}:\n${render(shown)}\n`);
      }
    }
    return EXIT.ok;
  },
});
