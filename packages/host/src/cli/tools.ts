/** `toolwire tools`: a page's tools, policy, grant and availability marked. */
import { escapeLine, stringifySafe } from '../shared/terminal-text.js';
import { clientCommand } from './client.js';
import { EXIT } from './command.js';
import type { Loose } from './format.js';
import { clip, formatTable, hiddenLine, sessionLine, ungrantedLine } from './format.js';

export const tools = clientCommand({
  name: 'tools',
  synopsis: 'tools',
  summary: ["List a page's tools (policy, grant and availability marked)."],
  options: ['session', 'detail', 'query'],
  examples: [
    'toolwire tools',
    'toolwire tools --query "add note"              # the page\'s own catalog search',
    'toolwire tools --detail full --session 1a2b     # schemas too, from one of several pages',
  ],
  async run({ args, session, control, out, json }) {
    const answer = await control('/v1/tools', {
      ...session,
      detail: args.detail ?? 'index',
      ...(args.query !== undefined ? { query: args.query } : {}),
    });
    if (args.json) {
      json({ session: answer.session, tools: answer.tools });
      return EXIT.ok;
    }
    out(`${sessionLine(answer.session)}\n`);
    const hidden = hiddenLine(answer.session);
    if (answer.tools.length === 0) {
      out(args.query ? `no tools match "${escapeLine(args.query)}"\n` : 'no tools\n');
      if (hidden) out(`${hidden}\n`);
      return EXIT.ok;
    }
    out(
      formatTable(
        ['TOOL', 'POLICY', 'GRANTED', 'AVAILABLE', 'ORIGIN', 'DESCRIPTION'],
        answer.tools.map((tool: Loose) => [
          String(tool.id),
          String(tool.policy),
          tool.granted ? 'yes' : 'no',
          tool.available
            ? 'yes'
            : `no (${clip(String(tool.runtime?.reason ?? tool.runtime?.code ?? 'unavailable'), 30)})`,
          !tool.origin || tool.origin === answer.session.origin ? 'page' : String(tool.origin),
          clip(String(tool.description ?? '')),
        ]),
      ),
    );
    const ungranted = ungrantedLine(answer.session, answer.tools);
    if (ungranted) out(`${ungranted}\n`);
    if (hidden) out(`${hidden}\n`);
    if (args.detail === 'full') {
      for (const tool of answer.tools) {
        out(`\n${escapeLine(String(tool.id))} (${escapeLine(String(tool.name))})\n`);
        out(`  arguments: ${stringifySafe(tool.argumentsSchema, 0)}\n`);
        out(`  result:    ${stringifySafe(tool.resultSchema, 0)}\n`);
      }
    }
    return EXIT.ok;
  },
});
