/** `toolwire sessions`: the connected pages, one row each. */
import { clientCommand } from './client.js';
import { EXIT } from './command.js';
import type { Loose } from './format.js';
import { clip, formatTable } from './format.js';

export const sessions = clientCommand({
  name: 'sessions',
  synopsis: 'sessions',
  summary: ['List the connected pages.'],
  examples: ['toolwire sessions', 'toolwire sessions --json'],
  async run({ args, control, out, json }) {
    const answer = await control('/v1/sessions');
    if (args.json) {
      json({ sessions: answer.sessions });
    } else if (answer.sessions.length === 0) {
      out('no sessions: no page is connected\n');
    } else {
      out(
        formatTable(
          ['SESSION', 'ORIGIN', 'TOOLS', 'GRANT', 'GUARD', 'SDK', 'PAGE'],
          answer.sessions.map((s: Loose) => [
            String(s.id).slice(0, 8),
            // A tab the extension connected from inside it says so.
            `${s.origin ?? '-'}${s.auth === 'extension' ? ' (extension)' : ''}`,
            // null: the page has not answered its first tool.query yet.
            s.tools === null ? 'loading' : String(s.tools),
            String(s.grant),
            s.guard === null || s.guard === undefined ? '-' : String(s.guard),
            s.sdk ? `${s.sdk.name} ${s.sdk.version}`.trim() : '-',
            s.page ? `${clip(s.page.title || '(untitled)', 40)}  ${s.page.url}` : '-',
          ]),
        ),
      );
    }
    return EXIT.ok;
  },
});
