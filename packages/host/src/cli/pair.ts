/** `toolwire pair [--page URL]`: a new single-use pairing link (or fragment) from the host. */
import { escapeLine } from '../shared/terminal-text.js';
import { clientCommand } from './client.js';
import { EXIT } from './command.js';

export const pair = clientCommand({
  name: 'pair',
  synopsis: 'pair [--page URL]',
  summary: [
    'Print a new pairing link for that page (single use, 5 minutes); without',
    "--page, the #toolwire=... fragment to add to any allowed page's address.",
  ],
  options: ['page'],
  notes: [
    '',
    'Open the link in the browser tab: the page asks the person there before it connects.',
  ],
  examples: [
    'toolwire pair --page http://localhost:5173/app/',
    'toolwire pair --json                             # {link, fragment, expiresAt}',
  ],
  async run({ args, io, control, out, json }) {
    const answer = await control('/v1/pair', args.page ? { page: args.page } : {});
    if (args.json) {
      json({
        link: answer.link ?? null,
        fragment: answer.fragment ?? null,
        expiresAt: answer.expiresAt,
      });
    } else if (answer.link) {
      out(`${escapeLine(String(answer.link))}\n`);
      io.stderr.write(
        `toolwire: open it in the browser tab to pair (single use, until ${escapeLine(String(answer.expiresAt))}); the page asks before it connects\n`,
      );
    } else {
      out(`${escapeLine(String(answer.fragment))}\n`);
      io.stderr.write(
        `toolwire: add it to an allowed page's address (single use, until ${escapeLine(String(answer.expiresAt))}); the page asks before it connects\n`,
      );
    }
    return EXIT.ok;
  },
});
